import C1nkGLib
import C1nkPipeline
import CGStreamer
import Foundation

/// Building a call's pipeline: the values its description is filled with,
/// where the door's media enters and the call's media leaves, and the
/// sinks' settings.
extension AnswerSession {
    /// The values the call's description is filled with: the user's, the
    /// speaker's feed, the door's codecs, and the recording's file; and the
    /// path of a recording that is kept.
    static func pipelineValues(callId: String, offer: OfferSummary, configuration: MediaConfiguration,
                               log: Log) -> (values: [String: String], recordingPath: String?) {
        var recordingPath: String?
        var values = configuration.userValues
        values["audio-sink"] = "proxysink name=\(Self.speakerFeedName)"
        values["video-depay"] = offer.videoDepayloader
        values["video-decoder"] = offer.videoDecoder
        values["audio-depay"] = offer.audioDepayloader
        values["audio-encoder"] = offer.audioSendChain().map { "\($0.encoder) ! capsfilter caps=\"\($0.caps)\"" }
            ?? PipelineDescription.standInValues["audio-encoder"]
        if let recording = configuration.recording {
            let file = recording.file(callId: callId, videoCodec: offer.videoCodec) { [log] note in
                log.warning("call \(callId): \(note)")
            }
            values["record-location"] = file.path
            values["record-muxer"] = file.container.muxer
            if !recording.discards { recordingPath = file.path }
        }
        return (values, recordingPath)
    }

    /// Builds, at start-up, the standby pipeline of the first call (see
    /// `CallPipelineStandby`) for the offer a door most likely makes: Opus
    /// (payload type 111, in-band FEC and DTX wished, as libwebrtc-based
    /// doors and the simulated door offer it) and VP8. A door that offers
    /// otherwise gets its pipeline built at the offer, and its own
    /// standby after the call.
    public static func prepareStandby(configuration: MediaConfiguration) {
        guard let description = try? configuration.resolvedPipeline(), let offer = try? OfferSummary(sdp: likelyOffer) else { return }
        let values = pipelineValues(callId: "standby", offer: offer, configuration: configuration, log: Log.media).values
        CallPipelineStandby.prepare(description, values: values)
    }

    /// Drops the standby pipeline (at shutdown).
    public static func discardStandby() { CallPipelineStandby.discard() }

    static let likelyOffer = """
        v=0\r
        o=- 0 0 IN IP4 0.0.0.0\r
        s=-\r
        t=0 0\r
        m=audio 9 UDP/TLS/RTP/SAVPF 111\r
        a=mid:audio0\r
        a=rtpmap:111 OPUS/48000/2\r
        a=fmtp:111 useinbandfec=1;usedtx=1\r
        m=video 9 UDP/TLS/RTP/SAVPF 96\r
        a=mid:video0\r
        a=rtpmap:96 VP8/90000\r

        """

    /// Finds where the door's media enters (`video-in`, `audio-in`); a medium
    /// the description does not take goes to a discarding sink.
    func prepareInputs() {
        for media in ["video", "audio"] {
            let undecodable = media == "audio" && !audioDecodable
            if !undecodable, let input = Gst.find("\(media)-in", in: pipeline.element) {
                inputs.set(media, gst_element_get_static_pad(input, "sink"))
                gst_object_unref(UnsafeMutableRawPointer(input))
            } else if media == "audio" ? offer.audioLineIndex != nil : offer.hasVideo {
                let discard = gst_element_factory_make("fakesink", "discard-\(media)")!
                ObjectProperty.set(UnsafeMutableRawPointer(discard), "sync", "false")
                ObjectProperty.set(UnsafeMutableRawPointer(discard), "async", "false")
                gst_bin_add(bin, discard)
                inputs.set(media, gst_element_get_static_pad(discard, "sink"))
            }
        }
    }

    /// Sets `sync=false` on every sink fed from `video-out` — also the
    /// real sinks inside a `--sink` bin and behind a tee (see
    /// `MediaConfiguration.renderImmediately`).
    func renderImmediately() {
        guard let output = Gst.find("video-out", in: pipeline.element) else { return }
        defer { gst_object_unref(UnsafeMutableRawPointer(output)) }
        guard let source = gst_element_get_static_pad(output, "src") else { return }
        defer { gst_object_unref(UnsafeMutableRawPointer(source)) }
        for sink in DownstreamSinks.from(source) where ObjectProperty.has(UnsafeMutableRawPointer(sink), "sync") {
            ObjectProperty.set(UnsafeMutableRawPointer(sink), "sync", "false")
        }
    }

    /// Widens the video's wait for repairs when its first packet has left
    /// the jitterbuffer: earlier, the wider window would hold that first
    /// frame (a jitterbuffer holds its first packet for its latency).
    func watchVideoForRepairWindow() {
        guard videoRepairWindow != nil, let pad = inputs.pad(for: "video") else { return }
        PadProbe.add(pad, GST_PAD_PROBE_TYPE_BUFFER) { [weak self] info in
            // RTP: the SSRC is bytes 8–11, big-endian.
            var bytes: [UInt8] = [0, 0, 0, 0]
            if let buffer = info.pointee.data?.assumingMemoryBound(to: GstBuffer.self),
               gst_buffer_extract(buffer, 8, &bytes, 4) == 4 {
                let ssrc = bytes.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
                MainContext.post { self?.widenVideoRepairWindow(ssrc: ssrc) }
            }
            return GST_PAD_PROBE_REMOVE
        }
    }

    /// Main context: see `videoRepairWindow`.
    func widenVideoRepairWindow(ssrc: UInt32) {
        guard !stopped, let window = videoRepairWindow else { return }
        if VideoRepair.widenWindow(in: webrtc.element, ssrc: ssrc, to: window) {
            log.debug("call \(callId): the door's video waits up to \(window) ms for a repair")
            currentRepairWindow = window
            followRepairRoundTrip(ssrc: ssrc, configured: window)
        } else {
            log.warning("call \(callId): no jitterbuffer for the door's video (SSRC \(ssrc)): repairs wait the call's latency")
        }
    }

    /// Whether the user's description of the video branch says `sync=`
    /// itself: the `--sink` value, or the pipeline's lines from `video-out` on.
    static func setsSync(_ configuration: MediaConfiguration) -> Bool {
        if configuration.videoSink.contains("sync=") { return true }
        guard let lines = (try? configuration.resolvedPipeline())?.lines,
              let start = lines.firstIndex(where: { $0.contains("video-out") }) else { return false }
        var branch = [lines[start]]
        for line in lines[(start + 1)...] {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard trimmed.hasPrefix("!") else { break }
            branch.append(trimmed)
        }
        let text = branch.joined(separator: " ")
        return text.components(separatedBy: "video-out").dropFirst().joined().contains("sync=")
    }

    /// An element of the call's pipeline by name (a new reference), for
    /// diagnostics and tests.
    func element(named name: String) -> UnsafeMutablePointer<GstElement>? { Gst.find(name, in: pipeline.element) }

    /// Counts frames at `video-out`, watches the recording's end, and holds
    /// the microphone at `audio-out` until it can be linked to webrtcbin.
    func prepareOutputs() {
        if let output = Gst.find("video-out", in: pipeline.element) {
            let pad = gst_element_get_static_pad(output, "sink")!
            let counter = frameCounter
            PadProbe.add(pad, GST_PAD_PROBE_TYPE_BUFFER) { [weak self] _ in
                // Measurement probe: one atomic increment per frame.
                if counter.value.add(1, ordering: .relaxed).newValue == 1 {
                    MainContext.post { self?.firstFrame() }
                }
                return GST_PAD_PROBE_OK
            }
            gst_object_unref(UnsafeMutableRawPointer(pad))
            gst_object_unref(UnsafeMutableRawPointer(output))
        }
        if let recordingPath {
            watchRecordingEnd(path: recordingPath)
            recordingBranch = RecordingBranch(pipeline: pipeline.element, path: recordingPath)
            if let muxer = recordingBranch?.muxer { UntimedBufferStamp.install(on: muxer) }
        }
        if let output = Gst.find("audio-out", in: pipeline.element) {
            let pad = gst_element_get_static_pad(output, "src")!
            gst_object_unref(UnsafeMutableRawPointer(output))
            let probe = PadProbe.add(pad, GST_PAD_PROBE_TYPE_BLOCK_DOWNSTREAM) { _ in GST_PAD_PROBE_OK }
            microphoneHold = (pad, probe)
        }
    }
}
