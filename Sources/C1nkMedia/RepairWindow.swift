import C1nkGLib
import CGStreamer

/// How long the door's video waits for a retransmission, as the link's
/// repair round trip grows: behind a router's queue (a narrow uplink, LTE) a
/// retransmission takes the queue's delay as well, and a window shorter than
/// that gives up on every repair and waits for a keyframe instead (a freeze).
/// The video jitterbuffer measures the round trip of its own repairs
/// (`rtx-rtt`); the window follows it, never below the configured one.
enum RepairWindow {
    /// The most a frame waits for its repair: beyond it, a keyframe is sooner.
    static let maximumMilliseconds: UInt = 400

    /// The window the door's video waits with once it flows (ms), or nil to
    /// keep the call's latency: only while frames are shown as soon as
    /// decoded, for a door that repairs by retransmission, and when the
    /// configured window is wider than the latency.
    static func initial(rendersAtOnce: Bool, doorRepairs: Bool, configured: UInt, latency: UInt) -> UInt? {
        rendersAtOnce && doorRepairs && configured > latency ? configured : nil
    }

    /// The window for a measured repair round trip (ms): one and a half
    /// round trips and a frame, within the configured window and the maximum.
    static func milliseconds(forRepairRoundTrip roundTrip: Double, configured: UInt) -> UInt {
        guard roundTrip.isFinite, roundTrip > 0 else { return configured }
        let wanted = UInt((roundTrip * 1.5 + 33).rounded(.up))
        return min(max(configured, wanted), max(configured, maximumMilliseconds))
    }

    /// The repair round trip the jitterbuffer of `ssrc` measured (ms), if any.
    static func measuredRoundTrip(in webrtc: Bin, ssrc: UInt32) -> Double? {
        // `stats` is a boxed structure: reading it gives a copy of our own.
        guard let jitterbuffer = VideoRepair.jitterbuffer(in: webrtc, ssrc: ssrc),
              let stats = c1nk_object_get_object(jitterbuffer.object, "stats")?.assumingMemoryBound(to: GstStructure.self) else {
            return nil
        }
        defer { gst_structure_free(stats) }
        var roundTrip: guint64 = 0
        guard gst_structure_get_uint64(stats, "rtx-rtt", &roundTrip) != 0, roundTrip > 0 else { return nil }
        return Double(roundTrip) / 1_000_000
    }
}

extension AnswerSession {
    /// Main context, once the video's window is set: every second, widens it
    /// to what the measured repair round trip needs.
    func followRepairRoundTrip(ssrc: UInt32, configured: UInt) {
        repairWindowFollower = GLibTimer(after: 1, repeats: true) { [weak self] in
            guard let self, !self.stopped,
                  let roundTrip = RepairWindow.measuredRoundTrip(in: self.webrtc.webrtcbin, ssrc: ssrc) else { return }
            let window = RepairWindow.milliseconds(forRepairRoundTrip: roundTrip, configured: configured)
            if window > self.currentRepairWindow, VideoRepair.widenWindow(in: self.webrtc.webrtcbin, ssrc: ssrc, to: window) {
                self.currentRepairWindow = window
                self.log.debug("call \(self.callId): repairs take \(Int(roundTrip)) ms: the door's video waits up to \(window) ms for one")
            }
        }
    }
}
