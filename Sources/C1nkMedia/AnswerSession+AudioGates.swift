import C1nkGLib
import C1nkPipeline
import CGStreamer
import Foundation

/// The call's audio gates: the microphone held closed until audio is enabled,
/// opened, muted; the speaker's gate; their failures (the call goes on
/// without them) and the levels on both sides.
extension AnswerSession {
    /// Opens (or closes) both audio gates: microphone to the door, door to the speaker.
    public func setAudioEnabled(_ enabled: Bool) {
        audioEnabled = enabled
        applyGates()
    }

    /// Mutes the microphone alone (the door stays audible).
    public func setMicrophoneMuted(_ muted: Bool) {
        microphoneMuted = muted
        applyGates()
    }

    public var isMicrophoneMuted: Bool { microphoneMuted }
    /// Whether the microphone's source is open (only after audio is enabled).
    public var isMicrophoneOpen: Bool { microphoneOpen }

    /// The loudest door and resident levels (dBFS RMS) since the last call.
    public func takeLevels() -> (door: Double, resident: Double) {
        defer { doorLevel = -.infinity; residentLevel = -.infinity }
        return (doorLevel, residentLevel)
    }

    /// Before the pipeline starts: the door's codec, the DSP, the microphone
    /// held closed, the speaker's feed connected.
    func prepareAudio() {
        let offered = offer.audioCodecs
        if offer.audioLineIndex != nil, !offered.contains(where: AudioCodecs.canDecode) {
            audioDecodable = false
            let text = "the door offers audio only as \(offered.isEmpty ? "nothing known" : offered.joined(separator: ", ")), "
                + "which cannot be decoded here (\(AudioCodecs.decodable().joined(separator: ", "))): the call goes on with video only"
            MainContext.post { [weak self] in self?.reportAudioProblem(text) }
        }
        if offer.audioLineIndex == nil || !audioDecodable, let input = Gst.find("audio-in", in: pipeline.element) {
            // No door audio will ever come: keep its branch out of the
            // pipeline's state changes (a decodebin waiting for its first
            // buffer would hold the whole call, video included, in PAUSED).
            for element in [input] + PipelineLinks.downstream(of: input, ownOnly: true) {
                gst_element_set_locked_state(element, 1)
            }
            gst_object_unref(UnsafeMutableRawPointer(input))
        }
        for dsp in PipelineLinks.elements(of: pipeline.element, factory: "webrtcdsp") {
            voice.configure(dsp, probe: speaker.probeName)
        }
        if let gate = Gst.find("microphone", in: pipeline.element) {
            defer { gst_object_unref(UnsafeMutableRawPointer(gate)) }
            ObjectProperty.set(UnsafeMutableRawPointer(gate), "volume", String(voice.microphoneGain))
            let upstream = PipelineLinks.upstream(of: gate)
            microphoneElements = upstream + [gate] + PipelineLinks.downstream(of: gate, stoppingAt: ["audio-out"])
            // Seed 002: one owner of a device at a time, and the microphone
            // only while talking: its sources stay in NULL until audio is enabled.
            for source in PipelineLinks.sources(upstream) {
                gst_object_ref(UnsafeMutableRawPointer(source))
                gst_element_set_locked_state(source, 1)
                microphoneSources.append(source)
            }
        }
        if let feed = Gst.find(Self.speakerFeedName, in: pipeline.element) {
            defer { gst_object_unref(UnsafeMutableRawPointer(feed)) }
            speakerElements = PipelineLinks.upstream(of: feed, stoppingAt: ["audio-in"]) + [feed]
            do {
                speakerInput = try speaker.attach(proxySink: feed, name: "call")
            } catch {
                log.warning("call \(callId): \(error)")
            }
        }
    }

    /// The door's voice is played as it arrives, like its picture (shown as
    /// soon as it is decoded, `renderImmediately`): rtpbin's RTCP lip-sync
    /// is turned off. It would delay the audio to the video's timeline
    /// (the door's encoding time and the first packets' arrival, 0–100 ms
    /// measured, changing with each sender report), a timeline that no
    /// video sink follows when it renders at once. See docs/pipelines.md.
    func playAudioOnArrival() {
        guard let rtpbin = Gst.find("rtpbin", in: webrtc.element) else { return }
        defer { gst_object_unref(UnsafeMutableRawPointer(rtpbin)) }
        // Offsets larger than 1 ns are ignored: none is applied.
        ObjectProperty.set(UnsafeMutableRawPointer(rtpbin), "max-ts-offset", "1")
    }

    /// Starts the microphone's sources (at accept). A device that cannot
    /// open is reported and the call goes on without it.
    func openMicrophone() {
        microphoneOpen = true
        for source in microphoneSources {
            gst_element_set_locked_state(source, 0)
            if gst_element_sync_state_with_parent(source) == 0 {
                microphoneBroken("\(Gst.name(source)) would not start")
                return
            }
        }
    }

    func microphoneBroken(_ reason: String) {
        guard !microphoneFailed else { return }
        microphoneFailed = true
        for source in microphoneSources {
            gst_element_set_locked_state(source, 1)
            gst_element_set_state(source, GST_STATE_NULL)
        }
        reportAudioProblem("the microphone cannot open (\(reason)): the call goes on without it; check --audio-source")
    }

    func audioBranchFailed(_ message: UnsafeMutablePointer<GstMessage>) {
        let reason = PipelineMessage.describeError(message)
        if microphoneElements.contains(where: { PipelineLinks.isInside(message.pointee.src, $0) }) {
            microphoneBroken(reason)
        } else {
            reportAudioProblem("the door's audio cannot play (\(reason)): the call goes on without it")
        }
    }

    func reportAudioProblem(_ text: String) {
        guard !stopped, audioProblemsReported.insert(text).inserted else { return }
        log.warning("call \(callId): \(text)")
        onAudioProblem?(text)
    }

    func applyGates() {
        if audioEnabled && !microphoneOpen && !microphoneFailed { openMicrophone() }
        setMute("microphone", !audioEnabled || microphoneMuted)
        setMute("speaker", !audioEnabled)
    }

    func setMute(_ name: String, _ muted: Bool) {
        guard let element = Gst.find(name, in: pipeline.element) else { return }
        ObjectProperty.set(UnsafeMutableRawPointer(element), "mute", muted ? "true" : "false")
        gst_object_unref(UnsafeMutableRawPointer(element))
    }

    /// A `level` message of one of the two gates: the speaker's peaks and
    /// the loudest levels for `takeLevels()`.
    func levelMessage(_ message: UnsafeMutablePointer<GstMessage>) {
        guard let level = AudioLevel.rms(from: message) else { return }
        switch Gst.name(message.pointee.src) {
        case "speaker-level":
            if audioEnabled { speakerPeakWhileEnabled = max(speakerPeakWhileEnabled, level) }
            else { speakerPeakWhileGated = max(speakerPeakWhileGated, level) }
            doorLevel = max(doorLevel, level)
        case "microphone-level":
            residentLevel = max(residentLevel, level)
        default:
            break
        }
    }
}
