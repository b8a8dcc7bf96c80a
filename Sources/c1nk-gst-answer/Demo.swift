import C1nkAnswerer
import C1nkDoor
import C1nkGLib
import C1nkLocal
import C1nkMedia
import C1nkSignaling
import Glibc

/// `--demo`: a local server and a simulated door in this process, one ring,
/// answered automatically, door opened, hung up, and a summary.
enum Demo {
    static func run(_ commandLine: AnswerCommandLine) -> Int32 {
        var options = commandLine.answerer
        let defaults = MediaConfiguration()
        let hasDisplay = !(environment("DISPLAY") ?? "").isEmpty || !(environment("WAYLAND_DISPLAY") ?? "").isEmpty
        if options.media.audioSink == defaults.audioSink && !hasSoundOutput() {
            options.media.audioSink = "fakesink sync=true"
        }
        if options.media.audioSource == defaults.audioSource {
            // The resident's voice: a tone, so the door has something to measure.
            options.media.audioSource = "audiotestsrc is-live=true wave=sine freq=660 volume=0.3"
        }
        if commandLine.stunGiven.isEmpty { options.media.ice.stunServers = [] }
        if options.media.ice.localAddresses.isEmpty { options.media.ice.localAddresses = ["127.0.0.1"] }
        options.answerMode = .auto
        options.openDoorAfter = options.openDoorAfter ?? 1.5
        options.hangupAfter = options.hangupAfter ?? 3
        options.exitAfterCalls = 1

        print("c1nk-gst demo: video sink \"\(options.media.videoSink)\"\(hasDisplay ? "" : " (no display found)"), audio sink \"\(options.media.audioSink)\"")
        do {
            options.media = try loadMedia(commandLine, media: options.media)
            let screens = try DisplaySetup(commandLine, media: &options.media)
            defer { screens.stop() }
            let server = try SignalServer()
            var doorOptions = SimulatedDoor.Options(serverURL: server.url)
            doorOptions.media.ice = .loopback
            let door = try SimulatedDoor(doorOptions)
            door.start()
            guard MainContext.run(timeout: 5, until: { door.isReady }) else {
                print("c1nk-gst demo: the simulated door did not connect")
                return 1
            }
            let events = try commandLine.eventsPath.map { try EventLog(path: $0) } ?? EventLog()
            let client = try SignalClient(SignalClient.Configuration(url: server.url, deviceId: "demo-resident"))
            let answerer = Answerer(signaller: client, options: options, events: events)
            screens.connect(answerer, events: events)
            answerer.start()
            guard MainContext.run(timeout: 5, until: { !server.connectedAppIds.isEmpty }) else {
                print("c1nk-gst demo: the answerer did not connect to the local server")
                return 1
            }
            print("c1nk-gst demo: local server \(server.url); ringing the door \"\(doorOptions.media.doorName)\"…")
            door.ring()
            let finished = MainContext.run(timeout: 30) { answerer.isFinished }
            // Leave the end screen up for a moment.
            if screens.display != nil { MainContext.spin(2) }
            answerer.shutdown()
            door.stop()
            server.stop()
            return summarize(answerer.lastCall, door: door, finished: finished)
        } catch {
            FileOutput.standardError.write("c1nk-gst-answer: \(error)\n")
            return 1
        }
    }

    private static func summarize(_ call: Answerer.CallFigures, door: SimulatedDoor, finished: Bool) -> Int32 {
        func ms(_ seconds: Double?) -> String { seconds.map { "\(Int(($0 * 1000).rounded())) ms" } ?? "never" }
        func db(_ level: Double) -> String { level.isFinite ? "\(Int(level.rounded())) dBFS" : "silence" }
        let heardAfter = door.loudestHeard(since: call.acceptedAt ?? .infinity)
        let heardBefore = door.loudestHeard(until: call.acceptedAt ?? .infinity)
        print("""

        c1nk-gst demo summary
          ring → media connected   \(ms(call.ringToMediaConnected))
          ring → first frame       \(ms(call.ringToFirstFrame))
          frames decoded           \(call.framesRendered)
          door heard before accept \(db(heardBefore))
          door heard after accept  \(db(heardAfter))
          door opened              \(call.doorOpened ? "yes" : "no")
          call ended               \(call.endReason ?? "no")
        """)
        let ok = finished && call.framesRendered > 0 && call.doorOpened && heardAfter > -40
        print(ok ? "  result                   OK" : "  result                   FAILED")
        return ok ? 0 : 1
    }

    private static func environment(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }

    /// A sound server or an ALSA device to play on.
    private static func hasSoundOutput() -> Bool {
        if let runtime = environment("XDG_RUNTIME_DIR"), access(runtime + "/pulse/native", F_OK) == 0 { return true }
        return access("/dev/snd/controlC0", F_OK) == 0
    }
}
