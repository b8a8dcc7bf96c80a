import C1nkGLib
import C1nkPipeline
import CGStreamer
import FoundationEssentials

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
        let bin = self.bin
        if offer.audioLineIndex == nil || !audioDecodable, let input = bin.element(named: "audio-in") {
            // No door audio will ever come: keep its branch out of the
            // pipeline's state changes (a decodebin waiting for its first
            // buffer would hold the whole call, video included, in PAUSED).
            for element in [input] + Self.retained(PipelineLinks.downstream(of: input.pointer, ownOnly: true)) {
                element.setLockedState(true)
            }
        }
        for dsp in bin.elements where dsp.factoryName == "webrtcdsp" {
            voice.configure(dsp, probe: speaker.probeName)
        }
        if let gate = bin.element(named: "microphone") {
            gate.set("volume", fromString: String(voice.microphoneGain))
            let upstream = PipelineLinks.upstream(of: gate.pointer)
            microphoneElements = Self.retained(upstream) + [gate]
                + Self.retained(PipelineLinks.downstream(of: gate.pointer, stoppingAt: ["audio-out"]))
            // One owner of a device at a time, and the microphone only while
            // talking: its sources stay in NULL until audio is enabled.
            for source in Self.retained(PipelineLinks.sources(upstream)) {
                source.setLockedState(true)
                microphoneSources.append(source)
            }
        }
        if let feed = bin.element(named: Self.speakerFeedName) {
            speakerElements = Self.retained(PipelineLinks.upstream(of: feed.pointer, stoppingAt: ["audio-in"])) + [feed]
            do {
                speakerInput = try speaker.attach(proxySink: feed.pointer, name: "call")
            } catch {
                log.warning("call \(callId): \(error)")
            }
        }
    }

    /// Elements a walk of the pipeline found (borrowed: the pipeline holds
    /// them), each with a reference of its own.
    static func retained(_ elements: [UnsafeMutablePointer<GstElement>]) -> [Element] {
        elements.map { Element(retaining: $0) }
    }

    /// The door's voice is played as it arrives, like its picture (shown as
    /// soon as it is decoded, `renderImmediately`): rtpbin's RTCP lip-sync
    /// is turned off. It would delay the audio to the video's timeline
    /// (the door's encoding time and the first packets' arrival, 0–100 ms
    /// measured, changing with each sender report), a timeline that no
    /// video sink follows when it renders at once. See docs/pipelines.md.
    func playAudioOnArrival() {
        // Offsets larger than 1 ns are ignored: none is applied.
        webrtc.webrtcbin.element(named: "rtpbin")?.set("max-ts-offset", fromString: "1")
    }

    /// Starts the microphone's sources (at accept). A device that cannot
    /// open is reported and the call goes on without it.
    func openMicrophone() {
        microphoneOpen = true
        for source in microphoneSources {
            source.setLockedState(false)
            if !source.syncStateWithParent() {
                microphoneBroken("\(source.name) would not start")
                return
            }
        }
    }

    func microphoneBroken(_ reason: String) {
        guard !microphoneFailed else { return }
        microphoneFailed = true
        for source in microphoneSources {
            source.setLockedState(true)
            source.setState(GST_STATE_NULL)
        }
        reportAudioProblem("the microphone cannot open (\(reason)): the call goes on without it; check --audio-source")
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
        bin.element(named: name)?.set("mute", fromString: muted ? "true" : "false")
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
