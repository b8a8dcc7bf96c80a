import C1nkCall
import C1nkDoor
import C1nkGLib
import C1nkLocal
import C1nkMQTT
import C1nkPipeline
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
        /// The latest of the door's frames (its stamped sequence number, 1 = its first) a snapshot showed.
        var latestFrameShown: Int?
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
        doorOptions.media.stampTime = true
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
        var sequences: [Int] = []
        for index in 0..<rings {
            progress("home: ring \(index + 1) of \(rings)…")
            let arrivalsBefore = ringArrivals.count
            let ringsBefore = Self.records(eventsPath).filter { $0.event.kind == .ringing }.count
            let ringAt = MainContext.unixMilliseconds()
            door.ring()
            // This ring's events, matched by its callId: its snapshot may be written before its first frame.
            func events() -> (ringing: TimedCallEvent, frame: TimedCallEvent, snapshot: TimedCallEvent)? {
                let records = Self.records(eventsPath)
                let rings = records.filter { $0.event.kind == .ringing }
                guard rings.count > ringsBefore, let callId = rings.last?.event.callId, let ringing = rings.last,
                      let frame = records.first(where: { $0.event.kind == .firstFrame && $0.event.callId == callId }),
                      let snapshot = records.first(where: { $0.event.kind == .snapshot && $0.event.callId == callId }) else { return nil }
                return (ringing, frame, snapshot)
            }
            guard MainContext.run(timeout: 15, until: { ringArrivals.count > arrivalsBefore && events() != nil }),
                  let (ringing, frame, snapshot) = events() else {
                throw BenchError("ring \(index + 1): no ring on MQTT, or no first frame or snapshot (events: \(eventsPath))")
            }
            let records = Self.records(eventsPath)
            ringToBroker.append(Double(ringArrivals[arrivalsBefore] - ringAt))
            ringingToBroker.append(Double(ringArrivals[arrivalsBefore] - ringing.t))
            snapshotDelays.append(Double(snapshot.t - frame.t))
            var frameNumber = "?"
            if case let .snapshot(_, path) = snapshot.event {
                sizes.append(Double((try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0) / 1000)
                if let sequence = Self.stampedSequence(path) { frameNumber = String(sequence); sequences.append(sequence) }
            }
            progress("home: ring \(index + 1): broker +\(ringToBroker.last!) ms, snapshot \(snapshot.t - frame.t) ms after the first frame, of the door's frame \(frameNumber)")
            let endedBefore = records.filter { $0.event.kind == .ended }.count
            door.hangup()
            _ = MainContext.run(timeout: 10) { Self.records(eventsPath).filter { $0.event.kind == .ended }.count > endedBefore }
            MainContext.spin(1)
        }
        subscriber.stop()
        return Figures(ringToBrokerMs: LatencyStats(ringToBroker), ringingToBrokerMs: LatencyStats(ringingToBroker),
                       firstFrameToSnapshotMs: LatencyStats(snapshotDelays), snapshotKB: sizes.sorted()[sizes.count / 2],
                       latestFrameShown: sequences.max(), rings: rings)
    }

    /// The door's sequence number stamped in the snapshot (`FrameStamp`): which of its frames it is.
    private static func stampedSequence(_ path: String) -> Int? {
        guard let pipeline = try? OwnedPipeline(launching: "filesrc location=\"\(path)\" ! jpegdec ! videoconvert ! video/x-raw,format=I420 ! appsink name=frame sync=false",
                                                name: "snapshot-check") else { return nil }
        defer { pipeline.release() }
        guard pipeline.start(), let sink = pipeline.pipeline.element(named: "frame"), let sample = Sample.pull(from: sink, seconds: 5),
              let caps = sample.caps, let width = caps.int("width"), let height = caps.int("height"), let buffer = sample.buffer else { return nil }
        return FrameStamp.readBoth(buffer.pointer, width: width, height: height)?.sequence
    }

    private static func records(_ path: String) -> [TimedCallEvent] {
        TimedCallEvent.read((try? String(contentsOfFile: path, encoding: .utf8)) ?? "")
    }
}

/// An anonymous `mosquitto` on a free loopback port, ended by its process id.
final class LocalBroker {
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
                String(format: "  snapshot size (640x480 JPEG, quality 85): %.0f kB", snapshotKB),
                "  the door's frame shown (its stamped number; 1 = its first): at most \(latestFrameShown.map(String.init) ?? "?")"]
    }
}
