import C1nkGLib
import C1nkLocal
import Foundation
import Glibc

/// What a connected answerer costs while it waits for rings.
struct IdleFigures: Codable {
    var seconds: Double
    var cpuPercent: Double
    /// Of which the wall display's threads (with --screens).
    var displayCPUPercent: Double?
    var rssMB: Double
    /// Of which private (not shared library pages).
    var privateRSSMB: Double
    var wakeupsPerSecond: Double
    /// Whether the web page (`--web-port`) and MQTT (`--mqtt`, a local mosquitto) were on.
    var webAndMQTT = false
}

struct IdleBenchmark {
    let seconds: Double
    /// More options for the answerer (the wall display).
    var arguments: [String] = []
    /// Also the web page's listener and an MQTT connection to a local mosquitto.
    var webAndMQTT = false

    func run() throws -> IdleFigures {
        let server = try SignalServer()
        defer { server.stop() }
        let directory = NSTemporaryDirectory() + "c1nk-idle-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var extra: [String] = []
        var broker: LocalBroker?
        if webAndMQTT {
            try WebBenchmark.setPassword(directory + "/web-password")
            // The page's certificate is made in the state folder.
            setenv("XDG_STATE_HOME", directory, 1)
            broker = try LocalBroker(directory: directory)
            extra = ["--web-port", String(UInt16.random(in: 20_000...40_000)), "--web-password-file", directory + "/web-password",
                     "--mqtt", "mqtt://127.0.0.1:\(broker!.port)"]
        }
        defer { broker?.stop() }
        let answerer = try AnswererProcess.spawn(["--server", server.url, "--device-id-file", directory + "/id",
                                                  "--sink", "fakesink", "--ringtone", "none"] + extra + arguments)
        defer { answerer.terminate() }
        guard MainContext.run(timeout: 10, until: { server.connectedAppIds.count == 1 }) else {
            throw BenchError("the answerer did not connect")
        }
        MainContext.spin(2) // start-up settles
        guard let start = ProcessSample(pid: answerer.processIdentifier) else { throw BenchError("the answerer exited") }
        MainContext.spin(seconds)
        guard let end = ProcessSample(pid: answerer.processIdentifier) else { throw BenchError("the answerer exited") }
        return IdleFigures(seconds: seconds, cpuPercent: ProcessSample.cpuPercent(from: start, to: end),
                           displayCPUPercent: arguments.isEmpty ? nil : ProcessSample.displayCPUPercent(from: start, to: end),
                           rssMB: Double(end.rssBytes) / 1_048_576, privateRSSMB: Double(end.anonymousRSSBytes) / 1_048_576,
                           wakeupsPerSecond: Double(end.contextSwitches - start.contextSwitches) / (end.time - start.time), webAndMQTT: webAndMQTT)
    }

    /// The line of the report's table.
    static func line(_ idle: IdleFigures) -> String {
        String(format: "idle, connected%@, %.0f s: CPU %.2f %% of a core, RSS %.1f MB (%.1f MB private), %.2f wake-ups/s",
               idle.webAndMQTT ? ", --web-port and --mqtt on" : "", idle.seconds, idle.cpuPercent, idle.rssMB, idle.privateRSSMB, idle.wakeupsPerSecond)
    }
}
