import C1nkAnswerer
import C1nkCommandLine
import C1nkGLib
import C1nkMedia
import C1nkSignaling
import Glibc

/// The rows of the media and audio sections of the option table (see `AnswerOptions.swift`).
extension AnswerOption {
    static let media = AnswerOptionSection(title: "Media (gst-launch descriptions, or element names)", options: [
        AnswerOption(name: "pipeline", kind: .value("NAME|FILE"), reload: .live,
                     help: ["the media graph: display (default), display-record, record, audio,",
                            "or a .pipeline file of your own (see docs/pipelines.md)"],
                     apply: { c, v in c.pipelineName = try nonEmpty(v, "--pipeline") },
                     show: { $0.pipelineName ?? "" }),
        AnswerOption(name: "record", kind: .value("PATH"), reload: .live,
                     help: ["record every call, without re-encoding, to PATH (.mkv default, or .mp4);",
                            "PATH holds {callId} and/or strftime patterns such as %Y%m%d-%H%M%S"],
                     apply: { c, v in
                         let template = try nonEmpty(v, "--record")
                         c.recordTemplate = template
                         do { c.answerer.media.recording = try RecordingTarget(template) }
                         catch let invalid as RecordingTarget.InvalidPath { throw ArgumentReader.UsageError(invalid.description) }
                     }, show: { $0.recordTemplate ?? "" }),
        AnswerOption(name: "snapshot", kind: .value("PATH|off"), reload: .live,
                     help: ["write a JPEG of each visitor (the first good frame of the door's video) to",
                            "PATH, with the same patterns as --record (default: beside the recording,",
                            "named as it is, .jpg; none without --record); off: never"],
                     apply: { c, v in
                         do { c.answerer.media.snapshot = try SnapshotTarget(try nonEmpty(v, "--snapshot")) }
                         catch let invalid as RecordingTarget.InvalidPath { throw ArgumentReader.UsageError(invalid.description) }
                     }, show: {
                         switch $0.answerer.media.snapshot {
                         case .besideRecording: return ""
                         case .off: return "off"
                         case .pattern(let template): return template
                         }
                     }),
        AnswerOption(name: "sink", kind: .value("DESC"), reload: .live,
                     help: ["video sink (default chosen at start: autovideosink with a display,",
                            "kmssink with a DRM device, otherwise fakesink; kmssink for a bare display)"],
                     apply: { c, v in c.answerer.media.videoSink = try nonEmpty(v, "--sink"); c.givenPlaceholders["sink"] = "--sink" },
                     show: { $0.answerer.media.videoSink }),
        AnswerOption(name: "decoder", kind: .value("auto|software|ELEMENT"),
                     help: ["what decodes the door's video: auto (default: the highest-ranked decoder",
                            "that decodes a test keyframe, hardware first where GStreamer ranks it so),",
                            "software, or an element (v4l2h264dec, vah264dec, nvh264dec, avdec_h264 …);",
                            "a decoder that fails in a call is replaced within a keyframe; doctor lists them"],
                     apply: { c, v in
                         do { c.answerer.media.decoder = try DecoderPreference(v) }
                         catch let invalid as DecoderPreference.Invalid { throw ArgumentReader.UsageError(invalid.description) }
                     }, show: { $0.answerer.media.decoder.description }),
        AnswerOption(name: "audio-source", kind: .value("DESC"), reload: .live,
                     help: ["microphone (default autoaudiosrc)"],
                     apply: { c, v in
                         c.answerer.media.audioSource = try nonEmpty(v, "--audio-source")
                         c.givenPlaceholders["audio-source"] = "--audio-source"
                     }, show: { $0.answerer.media.audioSource }),
        AnswerOption(name: "audio-sink", kind: .value("DESC"), reload: .live,
                     help: ["speaker (default autoaudiosink)"],
                     apply: { c, v in
                         c.answerer.media.audioSink = try nonEmpty(v, "--audio-sink")
                         c.givenPlaceholders["audio-sink"] = "--audio-sink"
                     }, show: { $0.answerer.media.audioSink }),
        AnswerOption(name: "latency", kind: .value("MS"), reload: .live,
                     help: ["jitterbuffer latency in ms (default 20): the audio's, and the video's with --video-sync"],
                     apply: { c, v in c.answerer.media.latencyMilliseconds = UInt(try ArgumentReader.integer(v, for: "--latency", maximum: 10_000)) },
                     show: { String($0.answerer.media.latencyMilliseconds) }),
        AnswerOption(name: "repair-window", kind: .value("MS"), reload: .live,
                     help: ["how long the door's video waits for a lost packet's retransmission",
                            "while frames are shown as soon as decoded (default 100; packets in",
                            "order are never held; the audio keeps --latency); at least, as it",
                            "follows the round trip repairs take, up to 400"],
                     apply: { c, v in
                         c.answerer.media.videoRepairWindowMilliseconds = UInt(try ArgumentReader.integer(v, for: "--repair-window", maximum: 10_000))
                     },
                     show: { String($0.answerer.media.videoRepairWindowMilliseconds) }),
        AnswerOption(name: "video-sync", kind: .flag, reload: .live,
                     help: ["show frames at their timestamps (smoother, later) instead of as soon",
                            "as decoded; a --sink with its own sync= setting is left alone"],
                     apply: { c, v in c.answerer.media.renderImmediately = !(try bool(v, "--video-sync")) },
                     show: { String(!$0.answerer.media.renderImmediately) }),
        AnswerOption(name: "stun", kind: .list("URL|none"),
                     help: ["STUN server, repeatable, or none for no STUN",
                            "(default " + IceConfiguration().stunServers.joined(separator: " and ") + ");",
                            "webrtcbin 1.22 and libnice take one STUN server: the first is used,",
                            "every --turn server also gives server-reflexive candidates"],
                     apply: { c, v in c.stunGiven.append(v) },
                     show: { $0.answerer.media.ice.stunServers.isEmpty ? "none" : $0.answerer.media.ice.stunServers.joined(separator: ";") }),
        AnswerOption(name: "turn", kind: .list("URL"),
                     help: ["TURN server turn://user:pass@host:port, repeatable"],
                     apply: { c, v in
                         guard v.hasPrefix("turn:") || v.hasPrefix("turns:") else {
                             throw ArgumentReader.UsageError("--turn takes turn://user:pass@host:port, not '\(v)'")
                         }
                         c.answerer.media.ice.turnServers.append(v)
                     }, show: { $0.answerer.media.ice.turnServers.joined(separator: ";") }),
        AnswerOption(name: "ice-local-ip", kind: .list("ADDR"),
                     help: ["gather ICE candidates on this local address, repeatable (127.0.0.1 works)"],
                     apply: { c, v in
                         guard IceConfiguration.isIPAddress(v) else {
                             throw ArgumentReader.UsageError("--ice-local-ip takes an IP address such as 127.0.0.1, not '\(v)'")
                         }
                         c.answerer.media.ice.localAddresses.append(v)
                     }, show: { $0.answerer.media.ice.localAddresses.joined(separator: ";") }),
        AnswerOption(name: "ice-transport-policy", kind: .value("all|relay"),
                     help: ["relay: connect only through a --turn server (default all)"],
                     apply: { c, v in
                         guard let policy = IceConfiguration.TransportPolicy(rawValue: v) else {
                             throw ArgumentReader.UsageError("--ice-transport-policy takes all or relay, not '\(v)'")
                         }
                         c.answerer.media.ice.transportPolicy = policy
                     }, show: { $0.answerer.media.ice.transportPolicy.rawValue }),
    ])

    static let audio = AnswerOptionSection(title: "Audio (see docs/pipelines.md)", options: [
        AnswerOption(name: "no-echo-cancel", kind: .flag,
                     help: ["turn echo cancellation off (webrtcdsp's noise suppression and gain control stay)"],
                     apply: { c, v in c.answerer.media.voice.echoCancel = !(try bool(v, "--no-echo-cancel")) },
                     show: { String(!$0.answerer.media.voice.echoCancel) }),
        AnswerOption(name: "echo-suppression", kind: .value("low|moderate|high"),
                     help: ["how hard residual echo is suppressed; higher cuts more of your voice while",
                            "both talk (default low)"],
                     apply: { c, v in
                         c.answerer.media.voice.echoSuppression = try ArgumentReader.choice(v, for: "--echo-suppression", VoiceProcessing.echoSuppressionLevels)
                     }, show: { $0.answerer.media.voice.echoSuppression }),
        AnswerOption(name: "noise-suppression", kind: .value("off|low|moderate|high|very-high"),
                     help: ["noise suppression on the microphone (default moderate)"],
                     apply: { c, v in
                         c.answerer.media.voice.noiseSuppression = try ArgumentReader.choice(v, for: "--noise-suppression", VoiceProcessing.noiseSuppressionLevels)
                     }, show: { $0.answerer.media.voice.noiseSuppression }),
        AnswerOption(name: "no-gain-control", kind: .flag,
                     help: ["turn the microphone's automatic gain control off"],
                     apply: { c, v in c.answerer.media.voice.gainControl = !(try bool(v, "--no-gain-control")) },
                     show: { String(!$0.answerer.media.voice.gainControl) }),
        AnswerOption(name: "mic-gain", kind: .value("DB"),
                     help: ["microphone gain after processing, -40 to +20 dB (default 0)"],
                     apply: { c, v in
                         c.answerer.media.voice.microphoneGainDB = try ArgumentReader.number(v, for: "--mic-gain", minimum: -40, maximum: 20)
                     }, show: { number($0.answerer.media.voice.microphoneGainDB) }),
        AnswerOption(name: "speaker-volume", kind: .value("PERCENT"),
                     help: ["volume of everything played (ringtone, sounds, the door), 0 to 400 (default 100)"],
                     apply: { c, v in c.answerer.speakerVolume = try ArgumentReader.number(v, for: "--speaker-volume", minimum: 0, maximum: 400) / 100 },
                     show: { number($0.answerer.speakerVolume * 100) }),
    ])
}
