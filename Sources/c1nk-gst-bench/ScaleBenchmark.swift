import C1nkGLib
import C1nkLocal
import Foundation

/// N record-only calls at once, each a door and an answerer of its own, all
/// on this machine: the figure for a building server.
struct ScaleStep: Codable {
    var calls: Int
    /// Sum over the answerers, % of one core.
    var answererCPUPercent: Double
    /// The doors' encoders, in the benchmark's own process (they share the machine).
    var doorsCPUPercent: Double
    /// Frames recorded over frames sent, worst call.
    var worstFrameRatio: Double
}

struct ScaleFigures: Codable {
    var steps: [ScaleStep]
    /// Most calls recorded at once with every call keeping ≥ 95 % of its frames.
    var maximumCalls: Int
    /// Answerer CPU added by each extra call (% of one core), by linear fit.
    var cpuPerExtraCall: Double
}

struct ScaleBenchmark {
    let maxCalls: Int
    let duration: Double

    func run() throws -> ScaleFigures {
        var steps: [ScaleStep] = []
        for calls in 1...maxCalls {
            let step = try runStep(calls)
            steps.append(step)
            if step.worstFrameRatio < 0.95 { break }
        }
        let good = steps.filter { $0.worstFrameRatio >= 0.95 }.map(\.calls).max() ?? 0
        return ScaleFigures(steps: steps, maximumCalls: good, cpuPerExtraCall: Self.slope(steps))
    }

    private func runStep(_ calls: Int) throws -> ScaleStep {
        let directory = NSTemporaryDirectory() + "c1nk-scale-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var servers: [SignalServer] = []
        var doors: [SimulatedDoor] = []
        var answerers: [(Process, ProcessMonitor, String)] = []
        defer {
            answerers.forEach { if $0.0.isRunning { $0.0.terminate() } }
            doors.forEach { $0.stop() }
            servers.forEach { $0.stop() }
        }
        for index in 0..<calls {
            let server = try SignalServer()
            var options = SimulatedDoor.Options(serverURL: server.url)
            options.doorId = "door-\(index)"
            options.media.ice = .loopback
            let door = try SimulatedDoor(options)
            door.start()
            let events = directory + "/events-\(index).jsonl"
            let process = try AnswererProcess.spawn([
                "--server", server.url, "--answer", "auto", "--hangup-after", String(duration), "--exit-after-calls", "1",
                "--stun", "none", "--ice-local-ip", "127.0.0.1", "--ringtone", "none", "--pipeline", "record",
                "--record", directory + "/call-\(index).mkv", "--events", events, "--device-id-file", directory + "/id-\(index)"])
            servers.append(server)
            doors.append(door)
            answerers.append((process, ProcessMonitor(pid: process.processIdentifier), events))
        }
        guard MainContext.run(timeout: 15, until: { zip(servers, doors).allSatisfy { $1.isReady && $0.connectedAppIds.count == 1 } }) else {
            throw BenchError("the answerers did not all connect")
        }
        let selfStart = ProcessSample(pid: getpid())
        doors.forEach { $0.ring() }
        let start = MainContext.monotonicSeconds() + 2 // past set-up
        MainContext.run(timeout: duration + 20) { answerers.allSatisfy { !$0.0.isRunning } }
        let selfEnd = ProcessSample(pid: getpid())
        answerers.forEach { $0.1.stop() }
        var worst = 1.0
        for (_, _, path) in answerers {
            let events = Events(path: path)
            let frames = events.framesRendered ?? 0
            let endedAt = events.time(.ended) ?? 0
            let seconds = endedAt - (events.time(.firstFrame) ?? endedAt)
            worst = min(worst, seconds > 0 ? Double(frames) / (seconds * 30) : 0)
        }
        let doorsCPU = pair(selfStart, selfEnd).map { ProcessSample.cpuPercent(from: $0, to: $1) } ?? 0
        return ScaleStep(calls: calls, answererCPUPercent: answerers.map { $0.1.cpuPercent(since: start) }.reduce(0, +),
                         doorsCPUPercent: doorsCPU, worstFrameRatio: min(1, worst))
    }

    private func pair(_ a: ProcessSample?, _ b: ProcessSample?) -> (ProcessSample, ProcessSample)? {
        guard let a, let b else { return nil }
        return (a, b)
    }

    /// Least-squares slope of answerer CPU over the number of calls.
    static func slope(_ steps: [ScaleStep]) -> Double {
        guard steps.count >= 2 else { return steps.first?.answererCPUPercent ?? 0 }
        let n = Double(steps.count)
        let xs = steps.map { Double($0.calls) }
        let ys = steps.map(\.answererCPUPercent)
        let mx = xs.reduce(0, +) / n
        let my = ys.reduce(0, +) / n
        let covariance = zip(xs, ys).map { ($0 - mx) * ($1 - my) }.reduce(0, +)
        let variance = xs.map { ($0 - mx) * ($0 - mx) }.reduce(0, +)
        return variance > 0 ? covariance / variance : 0
    }
}
