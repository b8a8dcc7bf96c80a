import C1nkGst

/// The options of `c1nk-gst-answer`, as the product's command-line contract
/// defines them.
struct AnswerCommandLine {
    var server = "wss://sig.c1nk.eu/ws"
    var serverGiven = false
    var answerer = Answerer.Options()
    var eventsPath: String?
    var deviceIdFile: String?
    var bundleId = "eu.c1nk.app"
    var trustedCAFile: String?
    var demo = false
    var help = false
    var quiet = false
    var stunGiven: [String] = []
    var pipelineName: String?
    var recordTemplate: String?
    /// Media options the user set, which the pipeline must have a place for.
    var givenPlaceholders: [String: String] = [:]
    /// The wall display: `--screens on|off|auto` (auto: on unless the sink is fakesink).
    var screens = "auto"
    var display = WallDisplay.Options()
    /// `--input`: Linux input devices (or recorded streams) for keys and touch.
    var inputs: [String] = []
    /// `--history`: print the ring history and exit.
    var printHistory = false

    static let usage = """
    Usage: c1nk-gst-answer [OPTIONS]
           c1nk-gst-answer --demo

    Answers the C1nk doorbell: rings at once, shows the door's video, lets you
    talk and open the door. Media runs in GStreamer's webrtcbin.

    Signaling:
      --server URL             signaling WebSocket, ws:// or wss:// (default wss://sig.c1nk.eu/ws)
      --trust-ca FILE          also trust this PEM certificate authority for wss://
      --device-id-file PATH    where the device id lives
                               (default $XDG_STATE_HOME/c1nk/device-id or ~/.local/state/c1nk/device-id)
      --bundle-id ID           bundleId sent in hello (default eu.c1nk.app)

    Answering:
      --answer auto|manual     auto: accept every ring; manual (default): commands on standard input:
                               accept, reject, open, hangup, mute, unmute (or a, r, o, h, m, u)
      --answer-delay S         auto mode: seconds between ring and accept (default 0)
      --open-door-after S      open the door S seconds after the accept
      --hangup-after S         hang up S seconds after the accept
      --exit-after-calls N     exit 0 after N calls have ended
      --connect-timeout S      end a ring with no WebRTC connection after S seconds (default 10)
      --ringtone none|DESC     ringtone audio source (gst-launch description), or none

    Media (gst-launch descriptions, or element names):
      --pipeline NAME|FILE     the media graph: display (default), display-record, record, audio,
                               or a .pipeline file of your own (see docs/pipelines.md)
      --record PATH            record every call, without re-encoding, to PATH (.mkv default, or .mp4);
                               PATH may hold {callId} and strftime patterns such as %Y%m%d-%H%M%S
      --sink DESC              video sink (default autovideosink; kmssink for a bare display)
      --audio-source DESC      microphone (default autoaudiosrc)
      --audio-sink DESC        speaker (default autoaudiosink)
      --latency MS             jitterbuffer latency in ms (default 20; more for a lossy Wi-Fi link)
      --video-sync             show frames at their timestamps (smoother, later) instead of as soon
                               as decoded; a --sink with its own sync= setting is left alone
      --stun URL|none          STUN server, repeatable (default stun:stun.l.google.com:19302); none for no STUN
      --turn URL               TURN server turn://user:pass@host:port, repeatable
      --ice-local-ip ADDR      gather ICE candidates on this local address, repeatable (127.0.0.1 works)

    Wall display (the C1nk screens around the door's video; never with --pipeline record or audio):
      --screens on|off|auto    draw the screens (auto, the default: on unless --sink is fakesink)
      --display-size WxH       the screen's size in pixels (default 1280x800)
      --building TEXT          the home screen's header (default "BYTOVÝ DOM")
      --reduce-motion          a static circle instead of the ringing pulse
      --input PATH|auto        keys and touch from a Linux input device (/dev/input/eventN), repeatable;
                               auto: every readable keyboard and touchscreen (needs the input group)
                               keys: Enter/a accept, Esc/r reject, o open, h hang up, m mute
      --history                print the ring history ($XDG_STATE_HOME/c1nk/history.jsonl) and exit

    Output:
      --events PATH|-          write one JSON event per line (- for standard output)
      --quiet                  no status lines on standard error (rings, calls, connection)
      --measure                measure decode and glass-to-glass latency of each call (a "measurements"
                               event at its end; glass-to-glass needs a door that stamps its frames)
      --demo                   run a local server and a simulated door in this process, ring once,
                               answer, open the door, hang up and print a summary
      --help                   show this help

    Logs: GST_DEBUG=c1nk*:5 shows c1nk's own debug lines among GStreamer's.
    Exit codes: 0 success, 1 runtime failure, 2 bad usage.
    """

    static func parse(_ arguments: [String]) throws -> AnswerCommandLine {
        var result = AnswerCommandLine()
        var reader = ArgumentReader(arguments)
        while let option = try reader.nextOption() {
            switch option {
            case "--help", "-h": result.help = true
            case "--demo": result.demo = true
            case "--quiet", "-q": result.quiet = true
            case "--server":
                result.server = try reader.value(for: option)
                try validateServerURL(result.server)
                result.serverGiven = true
            case "--trust-ca":
                let file = try reader.value(for: option)
                guard access(file, R_OK) == 0 else { throw ArgumentReader.UsageError("--trust-ca: cannot read \(file)") }
                result.trustedCAFile = file
            case "--device-id-file": result.deviceIdFile = try reader.value(for: option)
            case "--bundle-id": result.bundleId = try reader.value(for: option)
            case "--answer":
                result.answerer.answerMode = Answerer.AnswerMode(rawValue: try reader.choice(for: option, ["auto", "manual"]))!
            case "--answer-delay": result.answerer.answerDelay = try reader.number(for: option)
            case "--open-door-after": result.answerer.openDoorAfter = try reader.number(for: option)
            case "--hangup-after": result.answerer.hangupAfter = try reader.number(for: option)
            case "--exit-after-calls": result.answerer.exitAfterCalls = try reader.integer(for: option, minimum: 1)
            case "--connect-timeout": result.answerer.connectTimeout = try reader.number(for: option, minimum: 0.1)
            case "--ringtone":
                let value = try reader.value(for: option)
                result.answerer.ringtone = value == "none" ? nil : value
            case "--sink":
                result.answerer.media.videoSink = try nonEmpty(reader.value(for: option), option)
                result.givenPlaceholders["sink"] = option
            case "--audio-source":
                result.answerer.media.audioSource = try nonEmpty(reader.value(for: option), option)
                result.givenPlaceholders["audio-source"] = option
            case "--audio-sink":
                result.answerer.media.audioSink = try nonEmpty(reader.value(for: option), option)
                result.givenPlaceholders["audio-sink"] = option
            case "--pipeline": result.pipelineName = try nonEmpty(reader.value(for: option), option)
            case "--record":
                let template = try nonEmpty(reader.value(for: option), option)
                result.recordTemplate = template
                result.answerer.media.recording = try RecordingTarget(template)
            case "--latency": result.answerer.media.latencyMilliseconds = UInt(try reader.integer(for: option))
            case "--video-sync": result.answerer.media.renderImmediately = false
            case "--stun": result.stunGiven.append(try reader.value(for: option))
            case "--turn":
                let url = try reader.value(for: option)
                guard url.hasPrefix("turn:") || url.hasPrefix("turns:") else {
                    throw ArgumentReader.UsageError("--turn takes turn://user:pass@host:port, not '\(url)'")
                }
                result.answerer.media.ice.turnServers.append(url)
            case "--ice-local-ip":
                let address = try reader.value(for: option)
                guard isIPAddress(address) else {
                    throw ArgumentReader.UsageError("--ice-local-ip takes an IP address such as 127.0.0.1, not '\(address)'")
                }
                result.answerer.media.ice.localAddresses.append(address)
            case "--events": result.eventsPath = try reader.value(for: option)
            case "--measure": result.answerer.media.measure = true
            case "--screens": result.screens = try reader.choice(for: option, ["on", "off", "auto"])
            case "--display-size":
                let value = try reader.value(for: option)
                let parts = value.lowercased().split(separator: "x").compactMap { Int($0) }
                guard parts.count == 2, parts[0] >= 64, parts[1] >= 64, parts[0] <= 8192, parts[1] <= 8192 else {
                    throw ArgumentReader.UsageError("--display-size takes WIDTHxHEIGHT in pixels such as 1280x800 or 800x480, not '\(value)'")
                }
                (result.display.width, result.display.height) = (parts[0], parts[1])
            case "--building": result.display.building = try nonEmpty(reader.value(for: option), option)
            case "--reduce-motion": result.display.reduceMotion = true
            case "--input": result.inputs.append(try nonEmpty(reader.value(for: option), option))
            case "--history": result.printHistory = true
            default:
                throw ArgumentReader.UsageError("unknown option \(option)")
            }
        }
        if !result.stunGiven.isEmpty {
            if result.stunGiven.contains("none") {
                guard result.stunGiven.count == 1 else {
                    throw ArgumentReader.UsageError("--stun none cannot be combined with STUN servers")
                }
                result.answerer.media.ice.stunServers = []
            } else {
                for url in result.stunGiven where !url.hasPrefix("stun:") {
                    throw ArgumentReader.UsageError("--stun takes stun:host:port or none, not '\(url)'")
                }
                result.answerer.media.ice.stunServers = result.stunGiven
            }
        }
        return result
    }

    private static func nonEmpty(_ value: String, _ option: String) throws -> String {
        guard !value.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw ArgumentReader.UsageError("\(option) needs an element name or a pipeline description")
        }
        return value
    }

    private static func isIPAddress(_ text: String) -> Bool {
        var v4 = in_addr()
        var v6 = in6_addr()
        return inet_pton(AF_INET, text, &v4) == 1 || inet_pton(AF_INET6, text, &v6) == 1
    }
}

import Glibc
