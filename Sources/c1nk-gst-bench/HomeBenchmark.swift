import C1nkCall
import C1nkDoor
import C1nkGLib
import C1nkLocal
import C1nkMQTT
import C1nkProbes
import Foundation
import Glibc

/// `--home`: what the home sees of each ring. A real `mosquitto` on
/// loopback, the answerer with `--mqtt` and `--snapshot`, a subscriber in
/// this process: from the door's ring to the `ring` event at the
/// subscriber (the goal ≤ 50 ms), and from the answerer's first frame to
/// its snapshot on disk (the goal ≤ 150 ms). Nobody answers: each ring is
/// ended by the door once its snapshot is there.
struct HomeBenchmark {
    let rings: Int

    struct Figures: Codable {
        /// The door's ring → the `ring` event at an MQTT subscriber.
        var ringToBrokerMs: LatencyStats
        /// The answerer's `ringing` event → the same subscriber (the answerer's own share).
        var ringingToBrokerMs: LatencyStats
        /// The `first-frame` event → the `snapshot` event (written after the file is renamed into place).
        var firstFrameToSnapshotMs: LatencyStats
        var snapshotKB: Double
        var rings: Int
        var ringGoalMs = 50.0
        var snapshotGoalMs = 150.0
    }

    func run(progress: (String) -> Void) throws -> Figures {
        let directory = NSTemporaryDirectory() + "c1nk-home-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let broker = try LocalBroker(directory: directory)
        defer { broker.stop() }
        let server = try SignalServer()
        var doorOptions = SimulatedDoor.Options(serverURL: server.url)
        doorOptions.media.ice = .loopback
        let door = try SimulatedDoor(doorOptions)
        door.start()
        defer { door.stop(); server.stop() }

        let prefix = "c1nk/bench"
        var ringArrivals: [Int64] = []
        let subscriber = try MQTTClient(settings: MQTTSettings(host: "127.0.0.1", port: broker.port, clientId: "bench-subscriber"))
        subscriber.subscribe(prefix + "/event")
        subscriber.onMessage = { message in
            let text = String(decoding: message.payload, as: UTF8.self)
            if text.contains("\"event_type\":\"ring\"") { ringArrivals.append(MainContext.unixMilliseconds()) }
        }
        subscriber.start()

        let eventsPath = directory + "/events.jsonl"
        let answerer = try AnswererProcess.spawn([
            "--server", server.url, "--answer", "manual", "--stun", "none", "--ice-local-ip", "127.0.0.1", "--ringtone", "none",
            "--sink", "fakesink", "--screens", "off", "--audio-sink", "fakesink", "--audio-source", "audiotestsrc is-live=true",
            "--events", eventsPath, "--device-id-file", directory + "/device-id",
            "--mqtt", "mqtt://127.0.0.1:\(broker.port)", "--mqtt-topic", prefix, "--snapshot", directory + "/{callId}.jpg",
        ])
        defer { if answerer.isRunning { answerer.terminate(); answerer.waitUntilExit() } }
        guard MainContext.run(timeout: 15, until: { door.isReady && server.connectedAppIds.count == 1 && subscriber.isConnected }) else {
            throw BenchError("the answerer or the MQTT subscriber did not connect")
        }
        MainContext.spin(2) // the answerer's own MQTT connection and discovery
        var ringToBroker: [Double] = [], ringingToBroker: [Double] = [], snapshotDelays: [Double] = [], sizes: [Double] = []
        for index in 0..<rings {
            progress("home: ring \(index + 1) of \(rings)…")
            let arrivalsBefore = ringArrivals.count
            let snapshotsBefore = Self.records(eventsPath).filter { $0.event.kind == .snapshot }.count
            let ringAt = MainContext.unixMilliseconds()
            door.ring()
            guard MainContext.run(timeout: 15, until: {
                ringArrivals.count > arrivalsBefore && Self.records(eventsPath).filter { $0.event.kind == .snapshot }.count > snapshotsBefore
            }) else { throw BenchError("ring \(index + 1): no ring on MQTT or no snapshot (events: \(eventsPath))") }
            let records = Self.records(eventsPath)
            guard let ringing = records.last(where: { $0.event.kind == .ringing }),
                  let frame = records.last(where: { $0.event.kind == .firstFrame }),
                  let snapshot = records.last(where: { $0.event.kind == .snapshot }) else { throw BenchError("ring \(index + 1): events missing") }
            ringToBroker.append(Double(ringArrivals[arrivalsBefore] - ringAt))
            ringingToBroker.append(Double(ringArrivals[arrivalsBefore] - ringing.t))
            snapshotDelays.append(Double(snapshot.t - frame.t))
            if case let .snapshot(_, path) = snapshot.event {
                sizes.append(Double((try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0) / 1000)
            }
            let endedBefore = records.filter { $0.event.kind == .ended }.count
            door.hangup()
            _ = MainContext.run(timeout: 10) { Self.records(eventsPath).filter { $0.event.kind == .ended }.count > endedBefore }
            MainContext.spin(1)
        }
        subscriber.stop()
        return Figures(ringToBrokerMs: LatencyStats(ringToBroker), ringingToBrokerMs: LatencyStats(ringingToBroker),
                       firstFrameToSnapshotMs: LatencyStats(snapshotDelays), snapshotKB: sizes.sorted()[sizes.count / 2], rings: rings)
    }

    private static func records(_ path: String) -> [TimedCallEvent] {
        TimedCallEvent.read((try? String(contentsOfFile: path, encoding: .utf8)) ?? "")
    }
}

/// An anonymous `mosquitto` on a free loopback port, ended by its process id.
private final class LocalBroker {
    let port: Int
    private let process = Process()

    init(directory: String) throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/sbin/mosquitto") else {
            throw BenchError("mosquitto is not installed (scripts/install-deps installs it)")
        }
        port = 21_000 + Int.random(in: 0..<20_000)
        let config = "listener \(port) 127.0.0.1\nallow_anonymous true\npersistence false\nuser root\n"
        try config.write(toFile: directory + "/mosquitto.conf", atomically: true, encoding: .utf8)
        process.executableURL = URL(fileURLWithPath: "/usr/sbin/mosquitto")
        process.arguments = ["-c", directory + "/mosquitto.conf"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        MainContext.spin(0.3)
    }

    func stop() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
    }
}

extension HomeBenchmark.Figures {
    func tableLines() -> [String] {
        func f(_ value: Double) -> String { String(format: "%.0f", value) }
        func row(_ name: String, _ stats: LatencyStats, goal: Double?) -> String {
            "  " + name.padding(toLength: 42, withPad: " ", startingAt: 0) + " " + (f(stats.p50) + " / " + f(stats.max)).padding(toLength: 14, withPad: " ", startingAt: 0)
                + (goal.map { "≤ \(f($0)) ms: " + (stats.max <= $0 ? "met" : "NOT met") } ?? "")
        }
        return ["", "home: \(rings) rings to c1nk-gst-answer --mqtt --snapshot (mosquitto on loopback), nobody answering",
                "  " + "".padding(toLength: 42, withPad: " ", startingAt: 0) + " p50 / max ms   goal (every ring)",
                row("door's ring → ring event at a subscriber", ringToBrokerMs, goal: ringGoalMs),
                row("answerer's ringing event → the subscriber", ringingToBrokerMs, goal: nil),
                row("first frame → snapshot on disk", firstFrameToSnapshotMs, goal: snapshotGoalMs),
                "  (the snapshot decodes beside the call: below 0, it was on disk before the sink's first frame)",
                String(format: "  snapshot size (640x480 JPEG, quality 85): %.0f kB", snapshotKB)]
    }
}
