import CGLib
import FoundationEssentials
import Glibc

/// A config file in GLib's key file format (`GKeyFile`: `[group]`, `key = value`,
/// `# comment`, lists as `a;b;c`), with the line of every key, so that an error
/// can say `file:line`.
public final class KeyFile {
    public struct Entry: Equatable {
        public let group: String
        public let key: String
        public let line: Int
    }

    public let path: String
    /// Every key in file order.
    public private(set) var entries: [Entry] = []
    private let keyFile: OpaquePointer

    /// Loads `path`; a file that is not a key file is an error naming its line.
    public init(path: String) throws {
        self.path = path
        guard let data = FileManager.default.contents(atPath: path) else {
            throw KeyFileError(file: path, message: "cannot read the file: \(String(cString: strerror(errno)))")
        }
        let text = String(decoding: data, as: UTF8.self)
        keyFile = g_key_file_new()
        var error: UnsafeMutablePointer<GError>?
        let ok = text.withCString { g_key_file_load_from_data(keyFile, $0, gsize(strlen($0)), G_KEY_FILE_NONE, &error) }
        let lines = text.components(separatedBy: "\n")
        if ok == 0 {
            let failure = error.map { GLibError.take($0).message } ?? "not a key file"
            g_key_file_free(keyFile)
            throw Self.locate(failure, lines: lines, path: path)
        }
        var group = ""
        for (index, raw) in lines.enumerated() {
            let line = raw.trimmingWhitespace()
            if line.isEmpty || line.hasPrefix("#") { continue }
            if line.hasPrefix("[") && line.hasSuffix("]") { group = String(line.dropFirst().dropLast()); continue }
            if let equals = line.firstIndex(of: "=") {
                let key = line[..<equals].trimmingWhitespace()
                entries.append(Entry(group: group, key: key, line: index + 1))
            }
        }
    }

    deinit { g_key_file_free(keyFile) }

    /// The value of a key, with GLib's escapes (`\s`, `\n`, `\\`) undone.
    public func string(_ entry: Entry) throws -> String {
        var error: UnsafeMutablePointer<GError>?
        guard let value = g_key_file_get_string(keyFile, entry.group, entry.key, &error) else {
            throw KeyFileError(file: path, line: entry.line, message: error.map { GLibError.take($0).message } ?? "no value")
        }
        defer { g_free(value) }
        return String(cString: value)
    }

    /// A list value, `a;b;c`.
    public func list(_ entry: Entry) throws -> [String] {
        var error: UnsafeMutablePointer<GError>?
        var count: gsize = 0
        guard let values = g_key_file_get_string_list(keyFile, entry.group, entry.key, &count, &error) else {
            if let error { throw KeyFileError(file: path, line: entry.line, message: GLibError.take(error).message) }
            return []
        }
        defer { g_strfreev(values) }
        return (0..<Int(count)).compactMap { values[$0].map { String(cString: $0) } }
    }

    /// GLib says what is wrong but not where: find the first line that is
    /// neither blank, a comment, a group nor a `key=value`.
    private static func locate(_ message: String, lines: [String], path: String) -> KeyFileError {
        var seenGroup = false
        for (index, raw) in lines.enumerated() {
            let line = raw.trimmingWhitespace()
            if line.isEmpty || line.hasPrefix("#") { continue }
            if line.hasPrefix("[") {
                guard line.hasSuffix("]"), line.count > 2 else {
                    return KeyFileError(file: path, line: index + 1, message: "'\(line)' is not a [group] header")
                }
                seenGroup = true
                continue
            }
            guard line.contains("="), !line.hasPrefix("=") else {
                return KeyFileError(file: path, line: index + 1,
                                    message: "'\(line)' is not a key file line (expected key = value, [group] or # comment)")
            }
            if !seenGroup {
                return KeyFileError(file: path, line: index + 1, message: "a key before any [group] header: \(message)")
            }
        }
        return KeyFileError(file: path, message: "not a key file: \(message)")
    }
}

/// A config file problem, said as `file:line: what`.
public struct KeyFileError: Error, Equatable, CustomStringConvertible {
    public let file: String
    public var line: Int?
    public let message: String

    public init(file: String, line: Int? = nil, message: String) {
        self.file = file
        self.line = line
        self.message = message
    }

    public var description: String { file + (line.map { ":\($0)" } ?? "") + ": " + message }
}
