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

    /// The sections, in `--help` order; each option belongs to one.
    static let sections: [AnswerOptionSection] = [signaling, answering, capacity, media, audio, recording, display, output, service, mqtt, rtsp, web, sip, commandLine]

    /// Every option, in table order.
    static let all: [AnswerOption] = sections.flatMap(\.options)

    static let signaling = AnswerOptionSection(title: "Signaling", options: [
        AnswerOption(name: "server", kind: .value("URL"),
                     help: ["signaling WebSocket, ws:// or wss:// (default wss://sig.c1nk.eu/ws)"],
                     apply: { c, v in try validateServerURL(v); c.server = v; c.serverGiven = true },
                     show: { $0.server }),
        AnswerOption(name: "trust-ca", kind: .value("FILE"),
                     help: ["also trust this PEM certificate authority for wss://"],
                     apply: { c, v in
                         guard access(v, R_OK) == 0 else { throw ArgumentReader.UsageError("--trust-ca: cannot read \(v)") }
                         c.trustedCAFile = v
                     }, show: { $0.trustedCAFile ?? "" }),
        AnswerOption(name: "device-id-file", kind: .value("PATH"),
                     help: ["where the device id lives",
                            "(default $XDG_STATE_HOME/c1nk/device-id or ~/.local/state/c1nk/device-id)"],
                     apply: { c, v in c.deviceIdFile = v }, show: { $0.deviceIdFile ?? DeviceIdentity.defaultPath() }),
        AnswerOption(name: "bundle-id", kind: .value("ID"),
                     help: ["bundleId sent in hello (default eu.c1nk.app)"],
                     apply: { c, v in c.bundleId = v }, show: { $0.bundleId }),
    ])

    static let answering = AnswerOptionSection(title: "Answering", options: [
        AnswerOption(name: "answer", kind: .value("auto|manual"), reload: .live,
                     help: ["auto: accept every ring; manual (default): commands on standard input:",
                            "accept, reject, open, hangup, mute, unmute (or a, r, o, h, m, u)"],
                     apply: { c, v in
                         c.answerer.answerMode = Answerer.AnswerMode(rawValue: try ArgumentReader.choice(v, for: "--answer", ["auto", "manual"]))!
                     }, show: { $0.answerer.answerMode.rawValue }),
        AnswerOption(name: "answer-delay", kind: .value("S"), reload: .live,
                     help: ["auto mode: seconds between ring and accept (default 0)"],
                     apply: { c, v in c.answerer.answerDelay = try seconds(v, "--answer-delay") },
                     show: { number($0.answerer.answerDelay) }),
        AnswerOption(name: "open-door-after", kind: .value("S"), reload: .live,
                     help: ["open the door S seconds after the accept (default never)"],
                     apply: { c, v in c.answerer.openDoorAfter = try seconds(v, "--open-door-after") },
                     show: { $0.answerer.openDoorAfter.map(number) ?? "" }),
        AnswerOption(name: "hangup-after", kind: .value("S"), reload: .live,
                     help: ["hang up S seconds after the accept (default never)"],
                     apply: { c, v in c.answerer.hangupAfter = try seconds(v, "--hangup-after") },
                     show: { $0.answerer.hangupAfter.map(number) ?? "" }),
        AnswerOption(name: "exit-after-calls", kind: .value("N"),
                     help: ["exit 0 after N calls have ended (default never)"],
                     apply: { c, v in c.answerer.exitAfterCalls = try ArgumentReader.integer(v, for: "--exit-after-calls", minimum: 1) },
                     show: { $0.answerer.exitAfterCalls.map(String.init) ?? "" }),
        AnswerOption(name: "connect-timeout", kind: .value("S"), reload: .live,
                     help: ["end a ring with no WebRTC connection after S seconds (default 10)"],
                     apply: { c, v in
                         c.answerer.connectTimeout = try ArgumentReader.number(v, for: "--connect-timeout", minimum: 0.1, maximum: maximumSeconds)
                     }, show: { number($0.answerer.connectTimeout) }),
        AnswerOption(name: "ringtone", kind: .value("none|DESC"), reload: .live,
                     help: ["ringtone audio source (gst-launch description), or none (default an 880 Hz tick each second)"],
                     apply: { c, v in c.answerer.ringtone = v == "none" ? nil : v },
                     show: { $0.answerer.ringtone ?? "none" }),
    ])

    static let recording = AnswerOptionSection(title: "Recording retention (files --record made, matched by its pattern)", options: [
        AnswerOption(name: "keep-days", kind: .value("N"), reload: .live,
                     help: ["delete recordings older than N days, hourly and before each recording"],
                     apply: { c, v in c.retention.keepDays = try ArgumentReader.number(v, for: "--keep-days", minimum: 0.001, maximum: 36_500) },
                     show: { $0.retention.keepDays.map(number) ?? "" }),
        AnswerOption(name: "keep-gb", kind: .value("N"), reload: .live,
                     help: ["delete the oldest recordings while they take more than N GB"],
                     apply: { c, v in c.retention.keepGigabytes = try ArgumentReader.number(v, for: "--keep-gb", minimum: 0.001, maximum: 1_000_000) },
                     show: { $0.retention.keepGigabytes.map(number) ?? "" }),
        AnswerOption(name: "min-free-gb", kind: .value("N"), reload: .live,
                     help: ["start no recording while the folder's disk has less than N GB free (default 1)"],
                     apply: { c, v in c.retention.minimumFreeGigabytes = try ArgumentReader.number(v, for: "--min-free-gb", maximum: 1_000_000) },
                     show: { number($0.retention.minimumFreeGigabytes) }),
    ])

    static let display = AnswerOptionSection(title: "Wall display (the C1nk screens around the door's video; never with --pipeline record or audio)", options: [
        AnswerOption(name: "screens", kind: .value("on|off|auto"),
                     help: ["draw the screens (auto, the default: on unless --sink is fakesink)"],
                     apply: { c, v in c.screens = try ArgumentReader.choice(v, for: "--screens", ["on", "off", "auto"]) },
                     show: { $0.screens }),
        AnswerOption(name: "display-size", kind: .value("WxH"),
                     help: ["the screen's size in pixels (default 1280x800)"],
                     apply: { c, v in
                         let parts = v.lowercased().split(separator: "x").compactMap { Int($0) }
                         guard parts.count == 2, parts[0] >= 64, parts[1] >= 64, parts[0] <= 8192, parts[1] <= 8192 else {
                             throw ArgumentReader.UsageError("--display-size takes WIDTHxHEIGHT in pixels such as 1280x800 or 800x480, not '\(v)'")
                         }
                         (c.display.width, c.display.height) = (parts[0], parts[1])
                     }, show: { "\($0.display.width)x\($0.display.height)" }),
        AnswerOption(name: "building", kind: .value("TEXT"),
                     help: ["the home screen's header (default \"BYTOVÝ DOM\")"],
                     apply: { c, v in c.display.building = try nonEmpty(v, "--building", what: "a name such as \"Bytový dom · Hlavná 25\"") },
                     show: { $0.display.building }),
        AnswerOption(name: "reduce-motion", kind: .flag,
                     help: ["a static circle instead of the ringing pulse"],
                     apply: { c, v in c.display.reduceMotion = try bool(v, "--reduce-motion") },
                     show: { String($0.display.reduceMotion) }),
        AnswerOption(name: "input", kind: .list("PATH|auto"),
                     help: ["keys and touch from a Linux input device (/dev/input/eventN), repeatable;",
                            "auto: every readable keyboard and touchscreen (needs the input group);",
                            "keys: Enter/a accept, Esc/r reject, o open, h hang up, m mute"],
                     apply: { c, v in c.inputs.append(try nonEmpty(v, "--input", what: "a device such as /dev/input/event3, or auto")) },
                     show: { $0.inputs.joined(separator: ";") }),
        AnswerOption(name: "history", kind: .flag, scope: .commandLineOnly,
                     help: ["print the ring history ($XDG_STATE_HOME/c1nk/history.jsonl) and exit"],
                     apply: { c, v in c.printHistory = try bool(v, "--history") }),
    ])

    static let output = AnswerOptionSection(title: "Output", options: [
        AnswerOption(name: "events", kind: .value("PATH|-"),
                     help: ["write one JSON event per line (- for standard output)"],
                     apply: { c, v in c.eventsPath = v }, show: { $0.eventsPath ?? "" }),
        AnswerOption(name: "quiet", short: "-q", kind: .flag, reload: .live,
                     help: ["no status lines on standard error (rings, calls, connection)"],
                     apply: { c, v in c.quiet = try bool(v, "--quiet") }, show: { String($0.quiet) }),
        AnswerOption(name: "gst-debug", kind: .value("LIST"),
                     help: ["GStreamer debug output, as GST_DEBUG: e.g. c1nk*:5,webrtcbin:4 (to standard error;",
                            "a GST_DEBUG in the environment is used when this is not given)"],
                     apply: { c, v in
                         guard !v.isEmpty, !v.contains(" ") else {
                             throw ArgumentReader.UsageError("--gst-debug takes category:level pairs such as c1nk*:5,webrtcbin:4, not '\(v)'")
                         }
                         c.gstDebug = v
                     }, show: { $0.gstDebug ?? "" }),
        AnswerOption(name: "measure", kind: .flag, reload: .live,
                     help: ["measure decode and glass-to-glass latency of each call (a \"measurements\"",
                            "event at its end; glass-to-glass needs a door that stamps its frames)"],
                     apply: { c, v in c.answerer.media.measure = try bool(v, "--measure") },
                     show: { String($0.answerer.media.measure) }),
    ])

    static let service = AnswerOptionSection(title: "Service", options: [
        AnswerOption(name: "control", kind: .value("PATH"),
                     help: ["a Unix socket for home automation: JSON lines {\"command\":\"open\"} in,",
                            "{\"ok\":true} and the events out (owner-only; see docs/service.md)"],
                     apply: { c, v in c.controlPath = try nonEmpty(v, "--control", what: "a socket path") }, show: { $0.controlPath ?? "" }),
        AnswerOption(name: "control-mode", kind: .value("MODE"),
                     help: ["permissions of the control socket, octal (default 0600: the owner only;",
                            "0660 lets the socket's group in, e.g. a home automation user)"],
                     apply: { c, v in
                         guard let mode = UInt32(v, radix: 8), mode <= 0o777, mode & 0o600 == 0o600 else {
                             throw ArgumentReader.UsageError("--control-mode takes octal permissions with the owner's rw, such as 0600 or 0660, not '\(v)'")
                         }
                         c.controlMode = mode
                     }, show: { "0" + String($0.controlMode, radix: 8) }),
        AnswerOption(name: "config", kind: .value("FILE"), scope: .commandLineOnly,
                     help: ["read this config file instead of /etc/c1nk/answer.conf and",
                            "$XDG_CONFIG_HOME/c1nk/answer.conf (keys are the long option names)"],
                     apply: { c, v in c.configPath = v }),
        AnswerOption(name: "print-config", kind: .flag, scope: .commandLineOnly,
                     help: ["print the effective settings and where each came from, and exit"],
                     apply: { c, v in c.printConfig = try bool(v, "--print-config") }),
    ])

    static let commandLine = AnswerOptionSection(title: "Other", options: [
        AnswerOption(name: "demo", kind: .flag, scope: .commandLineOnly,
                     help: ["run a local server and a simulated door in this process, ring once,",
                            "answer, open the door, hang up and print a summary (no config files)"],
                     apply: { c, v in c.demo = try bool(v, "--demo") }),
        AnswerOption(name: "help", short: "-h", kind: .flag, scope: .commandLineOnly,
                     help: ["show this help"],
                     apply: { c, v in c.help = try bool(v, "--help") }),
    ])

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
        guard !value.trimmingWhitespace().isEmpty else {
            throw ArgumentReader.UsageError("\(option) needs \(what)")
        }
        return value
    }
}
