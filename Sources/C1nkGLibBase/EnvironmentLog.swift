import CGLib
import Glibc

/// The log of a process without GStreamer: `GST_DEBUG` read as GStreamer
/// reads it (`name:level` pairs, `*` globs, a bare level for every
/// category; the last match wins), lines written to standard error in
/// GStreamer's layout (elapsed time, pid, level, category, place, message).
public final class EnvironmentLog: LogDestination, @unchecked Sendable {
    public static let shared = EnvironmentLog(GLibEnvironment.value("GST_DEBUG") ?? "")

    private let rules: [(pattern: String, level: Int)]
    private let started = g_get_monotonic_time()

    public init(_ list: String) {
        rules = list.split(separator: ",").compactMap { entry in
            let parts = entry.split(separator: ":", maxSplits: 1).map { $0.trimmingWhitespace() }
            if parts.count == 1, let level = EnvironmentLog.level(parts[0]) { return ("*", level) }
            guard parts.count == 2, let level = EnvironmentLog.level(parts[1]) else { return nil }
            return (parts[0], level)
        }
    }

    /// The threshold of `name`: the last rule whose pattern matches it.
    public func threshold(_ name: String) -> Int {
        rules.last { g_pattern_match_simple($0.pattern, name) != 0 }?.level ?? 0
    }

    public func isEnabled(_ log: Log, _ level: Log.Level) -> Bool { threshold(log.name) >= level.rawValue }

    public func write(_ log: Log, _ level: Log.Level, _ message: String, file: String, function: String, line: Int) {
        let elapsed = Double(g_get_monotonic_time() - started) / 1_000_000
        let label = ["", "ERROR", "WARN", "FIXME", "INFO", "DEBUG", "LOG", "TRACE"][level.rawValue]
        let seconds = Int(elapsed)
        let stamp = "\(seconds / 3600):\(pad(seconds / 60 % 60, 2)):\(pad(seconds % 60, 2)).\(pad(Int((elapsed - Double(seconds)) * 1e9), 9))"
        FileDescriptorWriter.standardError.write("\(stamp) \(getpid()) \(label) \(log.name) \(file):\(line):\(function): \(message)\n")
    }

    private func pad(_ value: Int, _ width: Int) -> String {
        let text = String(value)
        return String(repeating: "0", count: max(0, width - text.count)) + text
    }

    /// A level by number or by GStreamer's name for it.
    private static func level(_ text: String) -> Int? {
        if let number = Int(text) { return max(0, min(9, number)) }
        let names = ["none": 0, "error": 1, "warning": 2, "fixme": 3, "info": 4, "debug": 5, "log": 6, "trace": 7, "memdump": 9]
        return names[text.lowercased()]
    }
}

/// Environment variables through GLib (no Foundation in this layer's hot paths).
package enum GLibEnvironment {
    package static func value(_ name: String) -> String? {
        g_getenv(name).map { String(cString: $0) }
    }
}
