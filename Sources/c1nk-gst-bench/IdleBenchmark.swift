import C1nkGLib
import C1nkLocal
import Foundation

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
}

struct IdleBenchmark {
    let seconds: Double
    /// More options for the answerer (the wall display).
    var arguments: [String] = []

    func run() throws -> IdleFigures {
        let server = try SignalServer()
        defer { server.stop() }
        let directory = NSTemporaryDirectory() + "c1nk-idle-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let answerer = try AnswererProcess.spawn(["--server", server.url, "--device-id-file", directory + "/id",
                                                  "--sink", "fakesink", "--ringtone", "none"] + arguments)
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
                           wakeupsPerSecond: Double(end.contextSwitches - start.contextSwitches) / (end.time - start.time))
    }
}
