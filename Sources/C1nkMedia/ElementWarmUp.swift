import C1nkGLib
import CGStreamer
import Synchronization

/// A call's element classes, loaded and initialised before a call needs them.
///
/// Loading a plug-in and initialising its classes costs tens of ms the first
/// time, which a call would otherwise pay between offer and answer. But a
/// loaded plug-in stays mapped for the life of the process, with every
/// library it links (libav's decoder alone maps ~100 of them, 30 MB resident),
/// so warming everything at start-up made an idle answerer hold what only a
/// call uses (docs/benchmarks.md, "Idle"). Creating and dropping an element
/// (never leaving NULL) opens no device. Missing elements are skipped.
package enum ElementWarmUp {
    package enum Stage: CaseIterable, Sendable {
        /// At start-up, on the main context: the DTLS certificate (dtlsdec
        /// makes it once per process: 120 ms here, 170–530 ms on a small
        /// CPU), webrtcbin and its ICE agent, RTP, the shipped pipelines,
        /// VP8/VP9 and the audio codecs. The door's offer comes 3 ms after
        /// the ring (with the server's join-ok), so no later moment hides them.
        case startUp
        /// H.264's decoders: libav's alone maps ~100 libraries (45 ms, 30 MB
        /// resident). Warmed at start-up, on a thread of its own, only when
        /// the door's last call was H.264 (`VideoCodecMemory`); otherwise
        /// decodebin loads them at the first H.264 packet of the first
        /// H.264 call (that call's first frame comes ~60 ms later). Loading
        /// them on a thread at the H.264 offer was worse: it held up the
        /// call's set-up (ring → media +45 ms here, even at the lowest priority).
        case h264
    }

    package static func elements(_ stage: Stage) -> [String] {
        switch stage {
        case .startUp:
            return ["dtlsdec", "dtlsenc", "dtlssrtpdec", "dtlssrtpenc", "srtpdec", "srtpenc",
                    "nicesrc", "nicesink", "webrtcbin", "rtpbin", "rtpsession", "rtpssrcdemux", "rtpjitterbuffer",
                    "rtpptdemux", "rtpstorage", "rtprtxsend", "rtprtxreceive", "rtpulpfecdec", "rtpulpfecenc",
                    "rtpreddec", "rtpredenc", "rtpfunnel", "funnel", "queue", "tee", "identity", "capsfilter",
                    "fakesink", "proxysink", "proxysrc", "decodebin", "typefind", "multiqueue", "videoconvert",
                    "videoscale", "audioconvert", "audioresample", "volume", "level", "webrtcdsp", "webrtcechoprobe",
                    "rtpvp8depay", "vp8dec", "rtpvp9depay", "vp9dec", "vp9parse",
                    "rtpopusdepay", "opusdec", "opusenc", "rtpopuspay",
                    "rtppcmudepay", "rtppcmadepay", "mulawdec", "alawdec", "mulawenc", "alawenc", "rtppcmupay", "rtppcmapay"]
        case .h264:
            return ["rtph264depay", "h264parse", "avdec_h264", "openh264dec"]
        }
    }

    /// The stages warmed in this process.
    private static let started = Mutex<Set<Stage>>([])

    /// Warms `stage` now, on the calling thread, unless it was already.
    package static func warm(_ stage: Stage) {
        guard claim(stage) else { return }
        let began = g_get_monotonic_time()
        for name in elements(stage) {
            _ = Element.make(name)
        }
        Log.callMedia.info("warm-up (\(stage)) took \((g_get_monotonic_time() - began) / 1000) ms")
    }

    private static func claim(_ stage: Stage) -> Bool {
        started.withLock { $0.insert(stage).inserted }
    }
}
