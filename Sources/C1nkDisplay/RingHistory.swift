import C1nkGLib
import FoundationEssentials
import Glibc

/// Every ring, kept as owner-only JSON lines in
/// `$XDG_STATE_HOME/c1nk/history.jsonl` (the last 500), shown on the home
/// screen and printed by `c1nk-gst-answer --history`.
public final class RingHistory {
    public enum Outcome: String, Codable, Sendable, CaseIterable {
        case answered, missed, rejected
        case answeredElsewhere = "answered-elsewhere"

        /// The word on the display ("prijaté", "zmeškané").
        public var text: String {
            switch self {
            case .answered: return "prijaté"
            case .missed: return "zmeškané"
            case .rejected: return "odmietnuté"
            case .answeredElsewhere: return "prijaté inde"
            }
        }
    }

    public struct Entry: Codable, Equatable, Sendable {
        /// Unix milliseconds of the ring.
        public var t: Int64
        public var door: String
        public var outcome: Outcome
        /// The visitor's snapshot (a JPEG), when the call had one; absent in older files.
        public var snapshot: String?

        public init(t: Int64, door: String, outcome: Outcome, snapshot: String? = nil) {
            self.t = t
            self.door = door
            self.outcome = outcome
            self.snapshot = snapshot
        }

        /// The list row: "Dnes 14:32" over "Hlavný vchod · prijaté".
        func row(now: Date = Date()) -> DisplayScene.Row {
            DisplayScene.Row(title: DisplayClock.dayAndTime(Date(timeIntervalSince1970: Double(t) / 1000), now: now),
                             subtitle: "\(door) · \(outcome.text)")
        }
    }

    public static let limit = 500
    public let path: String
    /// Newest last, as in the file.
    public private(set) var entries: [Entry] = []
    private let warn: (String) -> Void

    public static func defaultPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        let state = environment["XDG_STATE_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? (environment["HOME"] ?? FileManager.default.homeDirectoryForCurrentUser.path) + "/.local/state"
        return state + "/c1nk/history.jsonl"
    }

    /// Reads the file (a missing one is an empty history); a line that does
    /// not decode is skipped with a warning.
    public init(path: String = RingHistory.defaultPath(), warn: @escaping (String) -> Void = { Log.app.warning($0) }) {
        self.path = path
        self.warn = warn
        guard let data = FileManager.default.contents(atPath: path) else { return }
        let decoder = JSONDecoder()
        for (number, line) in data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).enumerated() where !line.isEmpty {
            if let entry = try? decoder.decode(Entry.self, from: Data(line)) {
                entries.append(entry)
            } else {
                warn("\(path):\(number + 1): skipped a ring history line that is not valid (\(String(decoding: line.prefix(60), as: UTF8.self)))")
            }
        }
        if entries.count > Self.limit { entries.removeFirst(entries.count - Self.limit) }
    }

    /// Newest first, at most `count`.
    public func latest(_ count: Int) -> [Entry] { Array(entries.suffix(count).reversed()) }

    /// Appends a ring; past 500 the file is rewritten with the last 500.
    public func append(_ entry: Entry) {
        entries.append(entry)
        do {
            try prepareDirectory()
            if entries.count > Self.limit {
                entries.removeFirst(entries.count - Self.limit)
                try rewrite()
            } else {
                try appendLine(entry)
            }
        } catch {
            warn("cannot write the ring history \(path): \(error)")
        }
    }

    /// The text of `--history`: one ring per line, newest first.
    public func text(now: Date = Date()) -> String {
        guard !entries.isEmpty else { return "No rings yet (\(path)).\n" }
        return latest(entries.count).map { entry in
            let row = entry.row(now: now)
            return "\(row.title)  \(row.subtitle)\n"
        }.joined()
    }

    private func prepareDirectory() throws {
        let directory = path.deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }

    private func line(_ entry: Entry) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var data = try encoder.encode(entry)
        data.append(UInt8(ascii: "\n"))
        return data
    }

    private func appendLine(_ entry: Entry) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw HistoryError(String(cString: strerror(errno))) }
        defer { close(fd) }
        fchmod(fd, 0o600)
        let data = try line(entry)
        let written = data.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        guard written == data.count else { throw HistoryError(String(cString: strerror(errno))) }
    }

    private func rewrite() throws {
        var data = Data()
        for entry in entries { data.append(try line(entry)) }
        let temporary = path + ".tmp"
        guard FileManager.default.createFile(atPath: temporary, contents: data, attributes: [.posixPermissions: 0o600]) else {
            throw HistoryError("cannot create \(temporary)")
        }
        guard rename(temporary, path) == 0 else { throw HistoryError(String(cString: strerror(errno))) }
    }

    struct HistoryError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
