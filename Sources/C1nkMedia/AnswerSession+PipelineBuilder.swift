import C1nkGLib
import C1nkPipeline
import CGStreamer
import FoundationEssentials

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
        values["video-decoder"] = offer.chosenVideoDecoder
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
    /// standby after the call. The decoder of the door's last video codec
    /// is warmed too, on a thread of its own (`VideoCodecMemory`).
    public static func prepareStandby(configuration: MediaConfiguration) {
        configuration.videoCodecMemory?.warmRememberedDecoder()
        guard let description = try? configuration.resolvedPipeline(), let offer = try? OfferSummary(sdp: likelyOffer) else { return }
        let values = pipelineValues(callId: "standby", offer: offer, configuration: configuration, log: Log.callMedia).values
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
        let bin = self.bin
        for media in ["video", "audio"] {
            let input = bin.element(named: "\(media)-in")
            switch InputRoute(hasInput: input != nil, decodable: media == "video" || audioDecodable,
                              offered: media == "audio" ? offer.audioLineIndex != nil : offer.hasVideo) {
            case .input:
                inputs.set(media, input?.staticPad("sink"))
            case .discard:
                let discard = Self.discardingSink("discard-\(media)")
                bin.add(discard)
                inputs.set(media, discard.staticPad("sink"))
            case .none:
                break
            }
        }
    }

    /// Sets `sync=false` on every sink fed from `video-out` — also the
    /// real sinks inside a `--sink` bin and behind a tee (see
    /// `MediaConfiguration.renderImmediately`).
    func renderImmediately() {
        guard let source = bin.element(named: "video-out")?.staticPad("src") else { return }
        for sink in Self.retained(DownstreamSinks.from(source.pointer)) where sink.has(property: "sync") {
            sink.set("sync", fromString: "false")
        }
    }

    /// Widens the video's wait for repairs when its first packet has left
    /// the jitterbuffer: earlier, the wider window would hold that first
    /// frame (a jitterbuffer holds its first packet for its latency).
    func watchVideoForRepairWindow() {
        guard videoRepairWindow != nil, let pad = inputs.pad(for: "video") else { return }
        pad.addProbe(GST_PAD_PROBE_TYPE_BUFFER) { [weak self] info in
            if let bytes = RTPHeader.bytes(of: info, at: 8, count: 4) {
                let ssrc = RTPHeader.ssrc(bytes)
                MainContext.post { self?.widenVideoRepairWindow(ssrc: ssrc) }
            }
            return GST_PAD_PROBE_REMOVE
        }
    }

    /// Main context: see `videoRepairWindow`.
    func widenVideoRepairWindow(ssrc: UInt32) {
        guard !stopped, let window = videoRepairWindow else { return }
        if VideoRepair.widenWindow(in: webrtc.webrtcbin, ssrc: ssrc, to: window) {
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
            let trimmed = line.trimmingWhitespace()
            guard trimmed.hasPrefix("!") else { break }
            branch.append(trimmed)
        }
        let text = branch.joined(separator: " ")
        return text.components(separatedBy: "video-out").dropFirst().joined().contains("sync=")
    }

    /// An element of the call's pipeline by name, for diagnostics and tests.
    package func element(named name: String) -> Element? { bin.element(named: name) }

    /// Counts frames at `video-out`, watches the recording's end, and holds
    /// the microphone at `audio-out` until it can be linked to webrtcbin.
    func prepareOutputs() {
        let bin = self.bin
        if let pad = bin.element(named: "video-out")?.staticPad("sink") {
            let counter = frameCounter
            pad.addProbe(GST_PAD_PROBE_TYPE_BUFFER) { [weak self] _ in
                // Measurement probe: one atomic increment per frame.
                if counter.value.add(1, ordering: .relaxed).newValue == 1 {
                    MainContext.post { self?.firstFrame() }
                }
                return GST_PAD_PROBE_OK
            }
        }
        if let recordingPath {
            watchRecordingEnd(path: recordingPath)
            recordingBranch = RecordingBranch(pipeline: bin, path: recordingPath)
            if let muxer = recordingBranch?.muxer { UntimedBufferStamp.install(on: muxer) }
        }
        if let pad = bin.element(named: "audio-out")?.staticPad("src") {
            let probe = pad.addProbe(GST_PAD_PROBE_TYPE_BLOCK_DOWNSTREAM) { _ in GST_PAD_PROBE_OK }
            microphoneHold = (pad, probe)
        }
    }
}
