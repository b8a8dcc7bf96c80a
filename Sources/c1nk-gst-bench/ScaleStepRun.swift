import C1nkDoor
import C1nkGLib
import C1nkLocal
import C1nkMedia
import Foundation
import Glibc

/// One step of the scale section: N calls at once, each a pre-encoded door
/// (in this process, costing almost nothing) and an answerer process of its
/// own, measured over a window while every call has its video.
struct ScaleStepRun {
    let calls: Int
    let pipeline: ScalePipeline
    let duration: Double

    func run() throws -> ScaleStep {
        let directory = NSTemporaryDirectory() + "c1nk-scale-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var servers: [SignalServer] = []
        var doors: [SimulatedDoor] = []
        var answerers: [(process: Process, events: String)] = []
        defer {
            answerers.forEach { if $0.process.isRunning { $0.process.terminate() } }
            doors.forEach { $0.stop() }
            servers.forEach { $0.stop() }
        }
        for index in 0..<calls {
            let server = try SignalServer()
            var options = SimulatedDoor.Options(serverURL: server.url)
            options.doorId = "door-\(index)"
            options.media.ice = .loopback
            options.media.preEncoded = true
            let door = try SimulatedDoor(options)
            door.start()
            let events = directory + "/events-\(index).jsonl"
            let process = try AnswererProcess.spawn([
                "--server", server.url, "--answer", "auto", "--exit-after-calls", "1",
                "--stun", "none", "--ice-local-ip", "127.0.0.1", "--ringtone", "none",
                "--events", events, "--device-id-file", directory + "/id-\(index)",
                // The section measures beyond what fits: no call is refused.
                "--max-calls", "off",
            ] + pipeline.arguments(recording: directory + "/call-\(index).mkv"))
            servers.append(server)
            doors.append(door)
            answerers.append((process, events))
        }
        let setupAllowance = 15 + Double(calls) * 0.5
        guard MainContext.run(timeout: setupAllowance, until: { zip(servers, doors).allSatisfy { $1.isReady && $0.connectedAppIds.count == 1 } }) else {
            throw BenchError("the answerers did not all connect")
        }
        MainContext.spin(1)
        let pids = answerers.map { $0.process.processIdentifier }
        let idlePSS = pids.compactMap { Self.proportionalSetBytes(pid: $0) }
        let load = Self.loadAverage()
        doors.forEach { $0.ring() }
        // The window opens once every call shows video (or the set-up time is up: an overloaded machine).
        MainContext.run(timeout: setupAllowance) { answerers.allSatisfy { Events(path: $0.events).time(.firstFrame) != nil } }
        MainContext.spin(1)
        let startSamples = pids.map { ProcessSample(pid: $0) }
        let selfStart = ProcessSample(pid: getpid())
        let machineStart = MachineCPU()
        MainContext.spin(duration)
        let endSamples = pids.map { ProcessSample(pid: $0) }
        let selfEnd = ProcessSample(pid: getpid())
        let machineEnd = MachineCPU()
        let pss = pids.compactMap { Self.proportionalSetBytes(pid: $0) }
        doors.forEach { $0.hangup() }
        MainContext.run(timeout: 20 + Double(calls) * 0.2) { answerers.allSatisfy { !$0.process.isRunning } }

        var ratios: [Double] = []
        for (_, path) in answerers {
            let events = Events(path: path)
            let frames = events.framesRendered ?? 0
            let endedAt = events.time(.ended) ?? 0
            let seconds = endedAt - (events.time(.firstFrame) ?? endedAt)
            ratios.append(min(1, seconds > 0 ? Double(frames) / (seconds * 30) : 0))
        }
        let cpu = zip(startSamples, endSamples).compactMap { start, end in
            start.flatMap { start in end.map { ProcessSample.cpuPercent(from: start, to: $0) } }
        }
        let ended = endSamples.compactMap { $0 }
        let switches = zip(startSamples, endSamples).compactMap { start, end in
            start.flatMap { start in end.map { Double($0.contextSwitches - start.contextSwitches) / max(0.001, $0.time - start.time) } }
        }
        let failed = answerers.filter { $0.process.isRunning || $0.process.terminationStatus != 0 || $0.process.terminationReason == .uncaughtSignal }.count
        let mb = 1.0 / 1_048_576
        return ScaleStep(
            calls: calls, answererCPUPercent: cpu.reduce(0, +),
            doorsCPUPercent: selfStart.flatMap { start in selfEnd.map { ProcessSample.cpuPercent(from: start, to: $0) } } ?? 0,
            worstFrameRatio: ratios.min() ?? 0,
            pipeline: pipeline.rawValue, medianFrameRatio: Self.median(ratios),
            callsWithVideo: answerers.filter { Events(path: $0.events).time(.firstFrame) != nil }.count,
            answererRSSMB: Double(ended.map(\.rssBytes).reduce(0, +)) * mb,
            answererPSSMB: Double(pss.reduce(0, +)) * mb,
            idlePSSPerAnswererMB: Self.median(idlePSS.map { Double($0) * mb }),
            threadsPerAnswerer: Int(Self.median(ended.map { Double($0.threadCPUSeconds.count) })),
            wakeupsPerAnswererPerSecond: Self.median(switches),
            machineBusyPercent: machineStart.flatMap { start in machineEnd.map { $0.busyPercent(since: start) } },
            loadAverage: load, failedAnswerers: failed)
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return 0 }
        return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }

    /// Pss of /proc/PID/smaps_rollup: the process's own pages plus its share
    /// of those it shares (libraries, the GStreamer registry) — what N
    /// processes really cost together, unlike N × RSS.
    static func proportionalSetBytes(pid: Int32) -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/smaps_rollup", encoding: .utf8),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix("Pss:") }),
              let kilobytes = Int(line.split(separator: " ").dropFirst().first ?? "") else { return nil }
        return kilobytes * 1024
    }

    static func loadAverage() -> Double? {
        (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").first.flatMap { Double($0) }
    }
}

/// The whole machine's CPU time from /proc/stat: what every process used,
/// the other engineers' builds included.
struct MachineCPU {
    let busy: Double
    let total: Double

    init?() {
        guard let text = try? String(contentsOfFile: "/proc/stat", encoding: .utf8),
              let line = text.split(separator: "\n").first, line.hasPrefix("cpu ") else { return nil }
        let fields = line.split(separator: " ").dropFirst().compactMap { Double($0) }
        guard fields.count >= 5 else { return nil }
        total = fields.prefix(8).reduce(0, +)
        busy = total - fields[3] - fields[4] // less idle and iowait
    }

    /// Busy % of one core since `start` (200 % is both of two cores full).
    func busyPercent(since start: MachineCPU) -> Double {
        let cores = Double(ProcessInfo.processInfo.activeProcessorCount)
        return total > start.total ? (busy - start.busy) / (total - start.total) * 100 * cores : 0
    }
}
