import C1nkDoor
import C1nkGLib
import C1nkLocal
import C1nkMQTT
import Foundation
import Glibc

/// `--footprint`: the answerer's memory as a home runs it, with `--web-port`
/// and `--mqtt` on (a local mosquitto): connected and idle, after N calls
/// (rung, answered, a second of talk, hung up by the door), and after a
/// day's traffic compressed into minutes: 1,440 MQTT commands and 1,440
/// polls of the page's state (one a minute each), 100 wrong-password logins
/// and 24 lost connections to the signaling server (one an hour).
struct FootprintFigures: Codable, PrettyJSON {
    struct Sample: Codable {
        var stage: String
        var rssMB: Double
        var pssMB: Double
        var privateMB: Double
    }
    var samples: [Sample]
    var calls: Int
    var answerer: String
    var goalRSSMB = 40.0
    var goalPSSMB = 25.0

    var table: String {
        var lines = ["Footprint of \(answerer) with --web-port and --mqtt on (goal: idle RSS ≤ \(Int(goalRSSMB)) MB, PSS ≤ \(Int(goalPSSMB)) MB)",
                     "  " + "".padding(toLength: 44, withPad: " ", startingAt: 0) + "   RSS MB   PSS MB   private MB"]
        for sample in samples {
            lines.append("  " + sample.stage.padding(toLength: 44, withPad: " ", startingAt: 0)
                         + String(format: " %8.1f %8.1f %12.1f", sample.rssMB, sample.pssMB, sample.privateMB))
        }
        return lines.joined(separator: "\n")
    }
}

struct FootprintBenchmark {
    let calls: Int
    /// Only the connected, idle row (`--footprint --idle-only`).
    var idleOnly = false
    static let token = "footprint-benchmark-token"
    static let prefix = "c1nk/footprint"

    func run(progress: (String) -> Void) throws -> FootprintFigures {
        let directory = NSTemporaryDirectory() + "c1nk-footprint-" + UUID().uuidString.prefix(8)
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
        try WebBenchmark.setPassword(directory + "/web-password")
        try (Self.token + "\n").write(toFile: directory + "/web-token", atomically: true, encoding: .utf8)
        chmod(directory + "/web-token", 0o600)
        // The page's certificate is made in the state folder.
        setenv("XDG_STATE_HOME", directory, 1)
        let port = UInt16.random(in: 20_000...40_000)
        let events = directory + "/events.jsonl"
        let answerer = try AnswererProcess.spawn([
            "--server", server.url, "--device-id-file", directory + "/id", "--answer", "auto", "--events", events,
            "--stun", "none", "--ice-local-ip", "127.0.0.1", "--sink", "fakesink", "--ringtone", "none",
            "--audio-source", "audiotestsrc is-live=true", "--quiet",
            "--web-port", String(port), "--web-password-file", directory + "/web-password", "--web-token-file", directory + "/web-token",
            "--mqtt", "mqtt://127.0.0.1:\(broker.port)", "--mqtt-topic", Self.prefix])
        defer { if answerer.isRunning { answerer.terminate(); answerer.waitUntilExit() } }
        // Generous: scripts/order-file runs the answerer under valgrind.
        guard MainContext.run(timeout: 180, until: { door.isReady && server.connectedAppIds.count == 1 }) else {
            throw BenchError("the answerer did not connect")
        }
        var samples: [FootprintFigures.Sample] = []
        func sample(_ stage: String) throws {
            MainContext.spin(5) // what the last step freed is given back
            guard let figures = Self.memory(pid: answerer.processIdentifier) else { throw BenchError("the answerer exited (\(stage))") }
            // C1NK_FOOTPRINT_SMAPS=DIR keeps each step's /proc/PID/smaps, to see where the memory goes.
            if let keep = ProcessInfo.processInfo.environment["C1NK_FOOTPRINT_SMAPS"] {
                try? FileHandle(forReadingAtPath: "/proc/\(answerer.processIdentifier)/smaps")?.readToEnd()?.write(to: URL(fileURLWithPath: keep + "/smaps-\(samples.count)"))
            }
            samples.append(FootprintFigures.Sample(stage: stage, rssMB: figures.rss, pssMB: figures.pss, privateMB: figures.private))
            progress(String(format: "footprint: %@: RSS %.1f MB, PSS %.1f MB, private %.1f MB", stage, figures.rss, figures.pss, figures.private))
        }
        try sample("connected, idle")
        let binary = ProcessInfo.processInfo.environment["C1NK_ANSWER_BINARY"] ?? "c1nk-gst-answer (release build)"
        if idleOnly { return FootprintFigures(samples: samples, calls: 0, answerer: binary) }

        for index in 0..<calls {
            let framesBefore = WebBenchmark.count("first-frame", in: events)
            let endedBefore = WebBenchmark.count("ended", in: events)
            door.ring()
            guard MainContext.run(timeout: 15, until: { WebBenchmark.count("first-frame", in: events) > framesBefore }) else {
                throw BenchError("call \(index + 1): no first frame (events: \(events))")
            }
            MainContext.spin(1)
            door.hangup()
            guard MainContext.run(timeout: 15, until: { WebBenchmark.count("ended", in: events) > endedBefore }) else {
                throw BenchError("call \(index + 1) did not end")
            }
            if (index + 1) % 10 == 0 { progress("footprint: \(index + 1) of \(calls) calls") }
        }
        try sample("after \(calls) calls")

        try compressedDay(broker: broker, server: server, base: "https://127.0.0.1:\(port)", directory: directory, progress: progress)
        try sample("after a day's traffic, compressed")
        return FootprintFigures(samples: samples, calls: calls, answerer: binary)
    }

    /// A day of what reaches an idle answerer, in a few minutes.
    private func compressedDay(broker: LocalBroker, server: SignalServer, base: String, directory: String,
                               progress: (String) -> Void) throws {
        progress("footprint: a day's traffic: MQTT commands, page polls, logins, lost connections…")
        let publisher = try MQTTClient(settings: MQTTSettings(host: "127.0.0.1", port: broker.port, clientId: "footprint-home"))
        publisher.start()
        defer { publisher.stop() }
        guard MainContext.run(timeout: 10, until: { publisher.isConnected }) else { throw BenchError("the MQTT publisher did not connect") }
        // Automations that press "hang up" with no call in progress: each is refused with a reply.
        for index in 0..<1_440 {
            _ = publisher.publish(MQTTMessage(topic: Self.prefix + "/command", payload: Array(#"{"command":"hangup"}"#.utf8)))
            if index % 50 == 0 { MainContext.spin(0.05) }
        }
        // The page left open on a tablet: its state, once a minute (curl's URL ranges, one connection).
        let polls = try Curl.start(["--rate", "50/s", "-H", "Authorization: Bearer \(Self.token)", "-o", "/dev/null", "-w", "%{http_code}\n",
                                    base + "/api/state?poll=[1-1440]"], output: directory + "/polls")
        defer { if polls.isRunning { polls.terminate() } }
        // A neighbour trying passwords (the answerer slows them down).
        let logins = try Curl.start(["--rate", "20/s", "-X", "POST", "-H", "Content-Type: application/json",
                                     "--data-binary", #"{"password":"not the password"}"#, "-o", "/dev/null", "-w", "%{http_code}\n",
                                     base + "/api/login?try=[1-100]"], output: directory + "/logins")
        defer { if logins.isRunning { logins.terminate() } }
        // The signaling server's connection lost once an hour; the answerer reconnects.
        for hour in 0..<24 {
            server.dropAppConnections()
            guard MainContext.run(timeout: 15, until: { server.connectedAppIds.count == 1 }) else {
                throw BenchError("the answerer did not reconnect (hour \(hour + 1))")
            }
            MainContext.spin(0.5)
        }
        _ = MainContext.run(timeout: 60) { !logins.isRunning && !polls.isRunning }
        let answered = ((try? String(contentsOfFile: directory + "/polls", encoding: .utf8)) ?? "").split(separator: "\n").filter { $0 == "200" }.count
        progress("footprint: \(answered) of 1440 polls answered")
    }

    /// RSS, PSS and private memory in MB, from /proc/PID/smaps_rollup.
    static func memory(pid: Int32) -> (rss: Double, pss: Double, private: Double)? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/smaps_rollup", encoding: .utf8) else { return nil }
        func kilobytes(_ key: String) -> Double {
            guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(key + ":") }),
                  let value = line.split(separator: " ").dropFirst().first.flatMap({ Double($0) }) else { return 0 }
            return value
        }
        return (kilobytes("Rss") / 1024, kilobytes("Pss") / 1024, (kilobytes("Private_Clean") + kilobytes("Private_Dirty")) / 1024)
    }
}
