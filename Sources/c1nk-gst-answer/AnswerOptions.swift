import C1nkAnswerer
import C1nkCommandLine
import C1nkGLib
import C1nkMedia
import C1nkSignaling
import Glibc

/// The rows of the option table. To add an option, add a row here (and a
/// field to `AnswerCommandLine` if it needs one): the command line, the config
/// file, `--help` and `--print-config` follow.
extension AnswerOption {
    /// The longest duration an option takes: a day. (More overflows GLib's
    /// timers, and no doorbell call needs it.)
    static let maximumSeconds = 86_400.0

    static let all: [AnswerOption] = signaling + answering + media + audio + recording + display + output + service + commandLine

    static let signaling: [AnswerOption] = [
        AnswerOption(section: "Signaling", name: "server", kind: .value("URL"),
                     help: ["signaling WebSocket, ws:// or wss:// (default wss://sig.c1nk.eu/ws)"],
                     apply: { c, v in try validateServerURL(v); c.server = v; c.serverGiven = true },
                     show: { $0.server }),
        AnswerOption(section: "Signaling", name: "trust-ca", kind: .value("FILE"),
                     help: ["also trust this PEM certificate authority for wss://"],
                     apply: { c, v in
                         guard access(v, R_OK) == 0 else { throw ArgumentReader.UsageError("--trust-ca: cannot read \(v)") }
                         c.trustedCAFile = v
                     }, show: { $0.trustedCAFile ?? "" }),
        AnswerOption(section: "Signaling", name: "device-id-file", kind: .value("PATH"),
                     help: ["where the device id lives",
                            "(default $XDG_STATE_HOME/c1nk/device-id or ~/.local/state/c1nk/device-id)"],
                     apply: { c, v in c.deviceIdFile = v }, show: { $0.deviceIdFile ?? DeviceIdentity.defaultPath() }),
        AnswerOption(section: "Signaling", name: "bundle-id", kind: .value("ID"),
                     help: ["bundleId sent in hello (default eu.c1nk.app)"],
                     apply: { c, v in c.bundleId = v }, show: { $0.bundleId }),
    ]

    static let answering: [AnswerOption] = [
        AnswerOption(section: "Answering", name: "answer", kind: .value("auto|manual"), reload: .live,
                     help: ["auto: accept every ring; manual (default): commands on standard input:",
                            "accept, reject, open, hangup, mute, unmute (or a, r, o, h, m, u)"],
                     apply: { c, v in
                         c.answerer.answerMode = Answerer.AnswerMode(rawValue: try ArgumentReader.choice(v, for: "--answer", ["auto", "manual"]))!
                     }, show: { $0.answerer.answerMode.rawValue }),
        AnswerOption(section: "Answering", name: "answer-delay", kind: .value("S"), reload: .live,
                     help: ["auto mode: seconds between ring and accept (default 0)"],
                     apply: { c, v in c.answerer.answerDelay = try seconds(v, "--answer-delay") },
                     show: { number($0.answerer.answerDelay) }),
        AnswerOption(section: "Answering", name: "open-door-after", kind: .value("S"), reload: .live,
                     help: ["open the door S seconds after the accept (default never)"],
                     apply: { c, v in c.answerer.openDoorAfter = try seconds(v, "--open-door-after") },
                     show: { $0.answerer.openDoorAfter.map(number) ?? "" }),
        AnswerOption(section: "Answering", name: "hangup-after", kind: .value("S"), reload: .live,
                     help: ["hang up S seconds after the accept (default never)"],
                     apply: { c, v in c.answerer.hangupAfter = try seconds(v, "--hangup-after") },
                     show: { $0.answerer.hangupAfter.map(number) ?? "" }),
        AnswerOption(section: "Answering", name: "exit-after-calls", kind: .value("N"),
                     help: ["exit 0 after N calls have ended (default never)"],
                     apply: { c, v in c.answerer.exitAfterCalls = try ArgumentReader.integer(v, for: "--exit-after-calls", minimum: 1) },
                     show: { $0.answerer.exitAfterCalls.map(String.init) ?? "" }),
        AnswerOption(section: "Answering", name: "connect-timeout", kind: .value("S"), reload: .live,
                     help: ["end a ring with no WebRTC connection after S seconds (default 10)"],
                     apply: { c, v in
                         c.answerer.connectTimeout = try ArgumentReader.number(v, for: "--connect-timeout", minimum: 0.1, maximum: maximumSeconds)
                     }, show: { number($0.answerer.connectTimeout) }),
        AnswerOption(section: "Answering", name: "ringtone", kind: .value("none|DESC"), reload: .live,
                     help: ["ringtone audio source (gst-launch description), or none (default an 880 Hz tick each second)"],
                     apply: { c, v in c.answerer.ringtone = v == "none" ? nil : v },
                     show: { $0.answerer.ringtone ?? "none" }),
    ]

    static let media: [AnswerOption] = [
        AnswerOption(section: "Media (gst-launch descriptions, or element names)", name: "pipeline", kind: .value("NAME|FILE"), reload: .live,
                     help: ["the media graph: display (default), display-record, record, audio,",
                            "or a .pipeline file of your own (see docs/pipelines.md)"],
                     apply: { c, v in c.pipelineName = try nonEmpty(v, "--pipeline") },
                     show: { $0.pipelineName ?? "" }),
        AnswerOption(section: "Media (gst-launch descriptions, or element names)", name: "record", kind: .value("PATH"), reload: .live,
                     help: ["record every call, without re-encoding, to PATH (.mkv default, or .mp4);",
                            "PATH holds {callId} and/or strftime patterns such as %Y%m%d-%H%M%S"],
                     apply: { c, v in
                         let template = try nonEmpty(v, "--record")
                         c.recordTemplate = template
                         do { c.answerer.media.recording = try RecordingTarget(template) }
                         catch let invalid as RecordingTarget.InvalidPath { throw ArgumentReader.UsageError(invalid.description) }
                     }, show: { $0.recordTemplate ?? "" }),
        AnswerOption(section: "Media (gst-launch descriptions, or element names)", name: "sink", kind: .value("DESC"), reload: .live,
                     help: ["video sink (default chosen at start: autovideosink with a display,",
                            "kmssink with a DRM device, otherwise fakesink; kmssink for a bare display)"],
                     apply: { c, v in c.answerer.media.videoSink = try nonEmpty(v, "--sink"); c.givenPlaceholders["sink"] = "--sink" },
                     show: { $0.answerer.media.videoSink }),
        AnswerOption(section: "Media (gst-launch descriptions, or element names)", name: "audio-source", kind: .value("DESC"), reload: .live,
                     help: ["microphone (default autoaudiosrc)"],
                     apply: { c, v in
                         c.answerer.media.audioSource = try nonEmpty(v, "--audio-source")
                         c.givenPlaceholders["audio-source"] = "--audio-source"
                     }, show: { $0.answerer.media.audioSource }),
        AnswerOption(section: "Media (gst-launch descriptions, or element names)", name: "audio-sink", kind: .value("DESC"), reload: .live,
                     help: ["speaker (default autoaudiosink)"],
                     apply: { c, v in
                         c.answerer.media.audioSink = try nonEmpty(v, "--audio-sink")
                         c.givenPlaceholders["audio-sink"] = "--audio-sink"
                     }, show: { $0.answerer.media.audioSink }),
        AnswerOption(section: "Media (gst-launch descriptions, or element names)", name: "latency", kind: .value("MS"), reload: .live,
                     help: ["jitterbuffer latency in ms (default 20): the audio's, and the video's with --video-sync"],
                     apply: { c, v in c.answerer.media.latencyMilliseconds = UInt(try ArgumentReader.integer(v, for: "--latency", maximum: 10_000)) },
                     show: { String($0.answerer.media.latencyMilliseconds) }),
        AnswerOption(section: "Media (gst-launch descriptions, or element names)", name: "repair-window", kind: .value("MS"), reload: .live,
                     help: ["how long the door's video waits for a lost packet's retransmission",
                            "while frames are shown as soon as decoded (default 100; packets in",
                            "order are never held; the audio keeps --latency); at least, as it",
                            "follows the round trip repairs take, up to 400"],
                     apply: { c, v in
                         c.answerer.media.videoRepairWindowMilliseconds = UInt(try ArgumentReader.integer(v, for: "--repair-window", maximum: 10_000))
                     },
                     show: { String($0.answerer.media.videoRepairWindowMilliseconds) }),
        AnswerOption(section: "Media (gst-launch descriptions, or element names)", name: "video-sync", kind: .flag, reload: .live,
                     help: ["show frames at their timestamps (smoother, later) instead of as soon",
                            "as decoded; a --sink with its own sync= setting is left alone"],
                     apply: { c, v in c.answerer.media.renderImmediately = !(try bool(v, "--video-sync")) },
                     show: { String(!$0.answerer.media.renderImmediately) }),
        AnswerOption(section: "Media (gst-launch descriptions, or element names)", name: "stun", kind: .list("URL|none"),
                     help: ["STUN server, repeatable, or none for no STUN",
                            "(default " + IceConfiguration().stunServers.joined(separator: " and ") + ");",
                            "webrtcbin 1.22 and libnice take one STUN server: the first is used,",
                            "every --turn server also gives server-reflexive candidates"],
                     apply: { c, v in c.stunGiven.append(v) },
                     show: { $0.answerer.media.ice.stunServers.isEmpty ? "none" : $0.answerer.media.ice.stunServers.joined(separator: ";") }),
        AnswerOption(section: "Media (gst-launch descriptions, or element names)", name: "turn", kind: .list("URL"),
                     help: ["TURN server turn://user:pass@host:port, repeatable"],
                     apply: { c, v in
                         guard v.hasPrefix("turn:") || v.hasPrefix("turns:") else {
                             throw ArgumentReader.UsageError("--turn takes turn://user:pass@host:port, not '\(v)'")
                         }
                         c.answerer.media.ice.turnServers.append(v)
                     }, show: { $0.answerer.media.ice.turnServers.joined(separator: ";") }),
        AnswerOption(section: "Media (gst-launch descriptions, or element names)", name: "ice-local-ip", kind: .list("ADDR"),
                     help: ["gather ICE candidates on this local address, repeatable (127.0.0.1 works)"],
                     apply: { c, v in
                         guard isIPAddress(v) else {
                             throw ArgumentReader.UsageError("--ice-local-ip takes an IP address such as 127.0.0.1, not '\(v)'")
                         }
                         c.answerer.media.ice.localAddresses.append(v)
                     }, show: { $0.answerer.media.ice.localAddresses.joined(separator: ";") }),
        AnswerOption(section: "Media (gst-launch descriptions, or element names)", name: "ice-transport-policy", kind: .value("all|relay"),
                     help: ["relay: connect only through a --turn server (default all)"],
                     apply: { c, v in
                         guard let policy = IceConfiguration.TransportPolicy(rawValue: v) else {
                             throw ArgumentReader.UsageError("--ice-transport-policy takes all or relay, not '\(v)'")
                         }
                         c.answerer.media.ice.transportPolicy = policy
                     }, show: { $0.answerer.media.ice.transportPolicy.rawValue }),
    ]

    static let audio: [AnswerOption] = [
        AnswerOption(section: "Audio (see docs/pipelines.md)", name: "no-echo-cancel", kind: .flag,
                     help: ["turn echo cancellation off (webrtcdsp's noise suppression and gain control stay)"],
                     apply: { c, v in c.answerer.media.voice.echoCancel = !(try bool(v, "--no-echo-cancel")) },
                     show: { String(!$0.answerer.media.voice.echoCancel) }),
        AnswerOption(section: "Audio (see docs/pipelines.md)", name: "echo-suppression", kind: .value("low|moderate|high"),
                     help: ["how hard residual echo is suppressed; higher cuts more of your voice while",
                            "both talk (default low)"],
                     apply: { c, v in
                         c.answerer.media.voice.echoSuppression = try ArgumentReader.choice(v, for: "--echo-suppression", VoiceProcessing.echoSuppressionLevels)
                     }, show: { $0.answerer.media.voice.echoSuppression }),
        AnswerOption(section: "Audio (see docs/pipelines.md)", name: "noise-suppression", kind: .value("off|low|moderate|high|very-high"),
                     help: ["noise suppression on the microphone (default moderate)"],
                     apply: { c, v in
                         c.answerer.media.voice.noiseSuppression = try ArgumentReader.choice(v, for: "--noise-suppression", VoiceProcessing.noiseSuppressionLevels)
                     }, show: { $0.answerer.media.voice.noiseSuppression }),
        AnswerOption(section: "Audio (see docs/pipelines.md)", name: "no-gain-control", kind: .flag,
                     help: ["turn the microphone's automatic gain control off"],
                     apply: { c, v in c.answerer.media.voice.gainControl = !(try bool(v, "--no-gain-control")) },
                     show: { String(!$0.answerer.media.voice.gainControl) }),
        AnswerOption(section: "Audio (see docs/pipelines.md)", name: "mic-gain", kind: .value("DB"),
                     help: ["microphone gain after processing, -40 to +20 dB (default 0)"],
                     apply: { c, v in
                         c.answerer.media.voice.microphoneGainDB = try ArgumentReader.number(v, for: "--mic-gain", minimum: -40, maximum: 20)
                     }, show: { number($0.answerer.media.voice.microphoneGainDB) }),
        AnswerOption(section: "Audio (see docs/pipelines.md)", name: "speaker-volume", kind: .value("PERCENT"),
                     help: ["volume of everything played (ringtone, sounds, the door), 0 to 400 (default 100)"],
                     apply: { c, v in c.answerer.speakerVolume = try ArgumentReader.number(v, for: "--speaker-volume", minimum: 0, maximum: 400) / 100 },
                     show: { number($0.answerer.speakerVolume * 100) }),
    ]

    static let recording: [AnswerOption] = [
        AnswerOption(section: "Recording retention (files --record made, matched by its pattern)", name: "keep-days", kind: .value("N"), reload: .live,
                     help: ["delete recordings older than N days, hourly and before each recording"],
                     apply: { c, v in c.retention.keepDays = try ArgumentReader.number(v, for: "--keep-days", minimum: 0.001, maximum: 36_500) },
                     show: { $0.retention.keepDays.map(number) ?? "" }),
        AnswerOption(section: "Recording retention (files --record made, matched by its pattern)", name: "keep-gb", kind: .value("N"), reload: .live,
                     help: ["delete the oldest recordings while they take more than N GB"],
                     apply: { c, v in c.retention.keepGigabytes = try ArgumentReader.number(v, for: "--keep-gb", minimum: 0.001, maximum: 1_000_000) },
                     show: { $0.retention.keepGigabytes.map(number) ?? "" }),
        AnswerOption(section: "Recording retention (files --record made, matched by its pattern)", name: "min-free-gb", kind: .value("N"), reload: .live,
                     help: ["start no recording while the folder's disk has less than N GB free (default 1)"],
                     apply: { c, v in c.retention.minimumFreeGigabytes = try ArgumentReader.number(v, for: "--min-free-gb", maximum: 1_000_000) },
                     show: { number($0.retention.minimumFreeGigabytes) }),
    ]

    static let display: [AnswerOption] = [
        AnswerOption(section: "Wall display (the C1nk screens around the door's video; never with --pipeline record or audio)",
                     name: "screens", kind: .value("on|off|auto"),
                     help: ["draw the screens (auto, the default: on unless --sink is fakesink)"],
                     apply: { c, v in c.screens = try ArgumentReader.choice(v, for: "--screens", ["on", "off", "auto"]) },
                     show: { $0.screens }),
        AnswerOption(section: "Wall display (the C1nk screens around the door's video; never with --pipeline record or audio)",
                     name: "display-size", kind: .value("WxH"),
                     help: ["the screen's size in pixels (default 1280x800)"],
                     apply: { c, v in
                         let parts = v.lowercased().split(separator: "x").compactMap { Int($0) }
                         guard parts.count == 2, parts[0] >= 64, parts[1] >= 64, parts[0] <= 8192, parts[1] <= 8192 else {
                             throw ArgumentReader.UsageError("--display-size takes WIDTHxHEIGHT in pixels such as 1280x800 or 800x480, not '\(v)'")
                         }
                         (c.display.width, c.display.height) = (parts[0], parts[1])
                     }, show: { "\($0.display.width)x\($0.display.height)" }),
        AnswerOption(section: "Wall display (the C1nk screens around the door's video; never with --pipeline record or audio)",
                     name: "building", kind: .value("TEXT"),
                     help: ["the home screen's header (default \"BYTOVÝ DOM\")"],
                     apply: { c, v in c.display.building = try nonEmpty(v, "--building", what: "a name such as \"Bytový dom · Hlavná 25\"") },
                     show: { $0.display.building }),
        AnswerOption(section: "Wall display (the C1nk screens around the door's video; never with --pipeline record or audio)",
                     name: "reduce-motion", kind: .flag,
                     help: ["a static circle instead of the ringing pulse"],
                     apply: { c, v in c.display.reduceMotion = try bool(v, "--reduce-motion") },
                     show: { String($0.display.reduceMotion) }),
        AnswerOption(section: "Wall display (the C1nk screens around the door's video; never with --pipeline record or audio)",
                     name: "input", kind: .list("PATH|auto"),
                     help: ["keys and touch from a Linux input device (/dev/input/eventN), repeatable;",
                            "auto: every readable keyboard and touchscreen (needs the input group);",
                            "keys: Enter/a accept, Esc/r reject, o open, h hang up, m mute"],
                     apply: { c, v in c.inputs.append(try nonEmpty(v, "--input", what: "a device such as /dev/input/event3, or auto")) },
                     show: { $0.inputs.joined(separator: ";") }),
        AnswerOption(section: "Wall display (the C1nk screens around the door's video; never with --pipeline record or audio)",
                     name: "history", kind: .flag, scope: .commandLineOnly,
                     help: ["print the ring history ($XDG_STATE_HOME/c1nk/history.jsonl) and exit"],
                     apply: { c, v in c.printHistory = try bool(v, "--history") }),
    ]

    static let output: [AnswerOption] = [
        AnswerOption(section: "Output", name: "events", kind: .value("PATH|-"),
                     help: ["write one JSON event per line (- for standard output)"],
                     apply: { c, v in c.eventsPath = v }, show: { $0.eventsPath ?? "" }),
        AnswerOption(section: "Output", name: "quiet", short: "-q", kind: .flag, reload: .live,
                     help: ["no status lines on standard error (rings, calls, connection)"],
                     apply: { c, v in c.quiet = try bool(v, "--quiet") }, show: { String($0.quiet) }),
        AnswerOption(section: "Output", name: "gst-debug", kind: .value("LIST"),
                     help: ["GStreamer debug output, as GST_DEBUG: e.g. c1nk*:5,webrtcbin:4 (to standard error;",
                            "a GST_DEBUG in the environment is used when this is not given)"],
                     apply: { c, v in
                         guard !v.isEmpty, !v.contains(" ") else {
                             throw ArgumentReader.UsageError("--gst-debug takes category:level pairs such as c1nk*:5,webrtcbin:4, not '\(v)'")
                         }
                         c.gstDebug = v
                     }, show: { $0.gstDebug ?? "" }),
        AnswerOption(section: "Output", name: "measure", kind: .flag, reload: .live,
                     help: ["measure decode and glass-to-glass latency of each call (a \"measurements\"",
                            "event at its end; glass-to-glass needs a door that stamps its frames)"],
                     apply: { c, v in c.answerer.media.measure = try bool(v, "--measure") },
                     show: { String($0.answerer.media.measure) }),
    ]

    static let service: [AnswerOption] = [
        AnswerOption(section: "Service", name: "control", kind: .value("PATH"),
                     help: ["a Unix socket for home automation: JSON lines {\"command\":\"open\"} in,",
                            "{\"ok\":true} and the events out (owner-only; see docs/service.md)"],
                     apply: { c, v in c.controlPath = try nonEmpty(v, "--control", what: "a socket path") }, show: { $0.controlPath ?? "" }),
        AnswerOption(section: "Service", name: "control-mode", kind: .value("MODE"),
                     help: ["permissions of the control socket, octal (default 0600: the owner only;",
                            "0660 lets the socket's group in, e.g. a home automation user)"],
                     apply: { c, v in
                         guard let mode = UInt32(v, radix: 8), mode <= 0o777, mode & 0o600 == 0o600 else {
                             throw ArgumentReader.UsageError("--control-mode takes octal permissions with the owner's rw, such as 0600 or 0660, not '\(v)'")
                         }
                         c.controlMode = mode
                     }, show: { "0" + String($0.controlMode, radix: 8) }),
        AnswerOption(section: "Service", name: "config", kind: .value("FILE"), scope: .commandLineOnly,
                     help: ["read this config file instead of /etc/c1nk/answer.conf and",
                            "$XDG_CONFIG_HOME/c1nk/answer.conf (keys are the long option names)"],
                     apply: { c, v in c.configPath = v }),
        AnswerOption(section: "Service", name: "print-config", kind: .flag, scope: .commandLineOnly,
                     help: ["print the effective settings and where each came from, and exit"],
                     apply: { c, v in c.printConfig = try bool(v, "--print-config") }),
    ]

    static let commandLine: [AnswerOption] = [
        AnswerOption(section: "Other", name: "demo", kind: .flag, scope: .commandLineOnly,
                     help: ["run a local server and a simulated door in this process, ring once,",
                            "answer, open the door, hang up and print a summary (no config files)"],
                     apply: { c, v in c.demo = try bool(v, "--demo") }),
        AnswerOption(section: "Other", name: "help", short: "-h", kind: .flag, scope: .commandLineOnly,
                     help: ["show this help"],
                     apply: { c, v in c.help = try bool(v, "--help") }),
    ]

    // MARK: - Value helpers

    static func seconds(_ text: String, _ option: String) throws -> Double {
        try ArgumentReader.number(text, for: option, maximum: maximumSeconds)
    }

    static func bool(_ text: String, _ option: String) throws -> Bool {
        switch text.lowercased() {
        case "true", "yes", "1": return true
        case "false", "no", "0": return false
        default: throw ArgumentReader.UsageError("\(option) takes true or false, not '\(text)'")
        }
    }

    static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }

    static func nonEmpty(_ value: String, _ option: String, what: String = "an element name or a pipeline description") throws -> String {
        guard !value.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw ArgumentReader.UsageError("\(option) needs \(what)")
        }
        return value
    }

    static func isIPAddress(_ text: String) -> Bool {
        var v4 = in_addr()
        var v6 = in6_addr()
        return inet_pton(AF_INET, text, &v4) == 1 || inet_pton(AF_INET6, text, &v6) == 1
    }
}
