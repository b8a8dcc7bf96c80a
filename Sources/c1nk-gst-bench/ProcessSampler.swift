import C1nkGLib
import Foundation
import Glibc

/// CPU time, memory and wake-ups of another process, read from /proc.
struct ProcessSample {
    /// User + system CPU seconds so far.
    var cpuSeconds: Double
    var rssBytes: Int
    /// The private part of the resident set (heap, stacks): what this process alone costs.
    var anonymousRSSBytes: Int
    /// High-water mark of the resident set.
    var peakRSSBytes: Int
    /// Context switches of all its threads so far (each is a wake-up or a preemption).
    var contextSwitches: Int
    /// CPU seconds so far of each thread, by thread id.
    var threadCPUSeconds: [Int: Double]
    /// The ids of the wall display's streaming threads (named `display-…`).
    var displayThreads: Set<Int>
    var time: Double

    static let ticksPerSecond = Double(sysconf(Int32(_SC_CLK_TCK)))

    init?(pid: Int32) {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return nil }
        // Fields after "(comm)": state is field 3; utime and stime are fields 14 and 15.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        cpuSeconds = (user + system) / Self.ticksPerSecond
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        rssBytes = Self.kilobytes("VmRSS:", in: status) * 1024
        anonymousRSSBytes = Self.kilobytes("RssAnon:", in: status) * 1024
        peakRSSBytes = Self.kilobytes("VmHWM:", in: status) * 1024
        contextSwitches = 0
        threadCPUSeconds = [:]
        displayThreads = []
        if let tasks = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task") {
            for task in tasks {
                if let id = Int(task),
                   let taskStat = try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/stat", encoding: .utf8),
                   let open = taskStat.firstIndex(of: "("), let close = taskStat.lastIndex(of: ")") {
                    let taskFields = taskStat[taskStat.index(after: close)...].split(separator: " ")
                    if taskFields.count > 13, let user = Double(taskFields[11]), let system = Double(taskFields[12]) {
                        threadCPUSeconds[id] = (user + system) / Self.ticksPerSecond
                    }
                    if taskStat[taskStat.index(after: open)..<close].hasPrefix("display-") { displayThreads.insert(id) }
                }
                let text = (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/status", encoding: .utf8)) ?? ""
                contextSwitches += Self.kilobytes("voluntary_ctxt_switches:", in: text)
                    + Self.kilobytes("nonvoluntary_ctxt_switches:", in: text)
            }
        }
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        time = Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }

    private static func kilobytes(_ key: String, in status: String) -> Int {
        for line in status.split(separator: "\n") where line.hasPrefix(key) {
            return Int(line.dropFirst(key.count).split(whereSeparator: { $0 == " " || $0 == "\t" }).first ?? "0") ?? 0
        }
        return 0
    }

    /// Percent of one core used between two samples.
    static func cpuPercent(from start: ProcessSample, to end: ProcessSample) -> Double {
        let elapsed = end.time - start.time
        return elapsed > 0 ? (end.cpuSeconds - start.cpuSeconds) / elapsed * 100 : 0
    }

    /// Percent of one core the wall display's threads used between two
    /// samples: each thread named `display-…` at either end, by its own id.
    /// (GStreamer reuses pooled threads and renames them after the pad they
    /// run: summed by name at each end, a display thread that went on to run
    /// a call's pad took its whole past with it, and the figure could go
    /// negative. A thread renamed between the samples counts whole: an upper
    /// bound. One that ended before the second sample took its time with it.)
    static func displayCPUPercent(from start: ProcessSample, to end: ProcessSample) -> Double {
        let elapsed = end.time - start.time
        let seconds = end.displayThreads.union(start.displayThreads).reduce(0.0) { sum, id in
            guard let now = end.threadCPUSeconds[id] else { return sum }
            return sum + now - (start.threadCPUSeconds[id] ?? 0)
        }
        return elapsed > 0 ? seconds / elapsed * 100 : 0
    }
}

/// Samples a process every `interval` seconds on the main context and keeps
/// the samples, so the last one before it exits is known.
final class ProcessMonitor {
    let pid: Int32
    private(set) var samples: [ProcessSample] = []
    private var timer: GLibTimer?

    init(pid: Int32, interval: Double = 0.25) {
        self.pid = pid
        sample()
        timer = GLibTimer(after: interval, repeats: true) { [weak self] in self?.sample() }
    }

    @discardableResult
    func sample() -> ProcessSample? {
        guard let sample = ProcessSample(pid: pid) else { return nil }
        samples.append(sample)
        return sample
    }

    func stop() { timer = nil }

    var peakRSSBytes: Int { samples.map(\.peakRSSBytes).max() ?? 0 }

    /// CPU % between the first sample at or after `start` and the last one.
    func cpuPercent(since start: Double) -> Double {
        guard let first = samples.first(where: { $0.time >= start }), let last = samples.last else { return 0 }
        return ProcessSample.cpuPercent(from: first, to: last)
    }

    /// The wall display's share of that.
    func displayCPUPercent(since start: Double) -> Double {
        guard let first = samples.first(where: { $0.time >= start }), let last = samples.last else { return 0 }
        return ProcessSample.displayCPUPercent(from: first, to: last)
    }
}

