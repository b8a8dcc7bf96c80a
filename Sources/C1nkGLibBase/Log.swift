import CGLib
import Glibc

/// Logging by category, as GStreamer's debug categories do: `GST_DEBUG=c1nk*:5`
/// shows everything of ours. In a process that runs GStreamer, the lines go
/// through GStreamer's own debug log (`LogDestination`, installed by the
/// media layer), so they interleave with GStreamer's; in one that does not
/// (the local signaling server) this layer reads `GST_DEBUG` itself and
/// writes the same kind of line to standard error.
/// Warnings and errors are meant for the person running the command and also
/// go to standard error, whatever `GST_DEBUG` says.
public struct Log: Sendable {
    public enum Level: Int, Sendable { case error = 1, warning = 2, info = 4, debug = 5, trace = 7 }

    public let name: String
    public let description: String

    public init(_ name: String, description: String) {
        self.name = name
        self.description = description
    }

    /// The commands' own lines, and warnings meant for the person running them.
    /// Each target has a category of its own beside it (`Log+<Target>.swift`).
    public static let app = Log("c1nk", description: "c1nk commands")

    /// When false, warnings and errors are not echoed to standard error
    /// (tests that provoke them on purpose keep their output readable).
    nonisolated(unsafe) public static var echoToStandardError = true

    /// Where enabled lines go; GStreamer's debug log once the media layer starts.
    nonisolated(unsafe) public static var destination: any LogDestination = EnvironmentLog.shared

    public func error(_ message: @autoclosure () -> String, file: String = #fileID, function: String = #function, line: Int = #line) {
        emit(.error, "error", message(), file, function, line)
    }
    public func warning(_ message: @autoclosure () -> String, file: String = #fileID, function: String = #function, line: Int = #line) {
        emit(.warning, "warning", message(), file, function, line)
    }
    public func info(_ message: @autoclosure () -> String, file: String = #fileID, function: String = #function, line: Int = #line) {
        emit(.info, nil, message(), file, function, line)
    }
    public func debug(_ message: @autoclosure () -> String, file: String = #fileID, function: String = #function, line: Int = #line) {
        emit(.debug, nil, message(), file, function, line)
    }

    private func emit(_ level: Level, _ echo: String?, _ message: @autoclosure () -> String,
                      _ file: String, _ function: String, _ line: Int) {
        let destination = Log.destination
        let enabled = destination.isEnabled(self, level)
        guard enabled || (echo != nil && Log.echoToStandardError) else { return }
        let text = message()
        if enabled { destination.write(self, level, text, file: file, function: function, line: line) }
        if let echo, Log.echoToStandardError {
            FileDescriptorWriter.standardError.write(Journal.prefix(level == .error ? .error : .warning) + "\(name): \(echo): \(text)\n")
        }
    }
}

/// Where a category's enabled lines go.
public protocol LogDestination: AnyObject, Sendable {
    func isEnabled(_ log: Log, _ level: Log.Level) -> Bool
    func write(_ log: Log, _ level: Log.Level, _ message: String, file: String, function: String, line: Int)
}

/// Unbuffered writes to a file descriptor (stderr must not wait for a flush).
package struct FileDescriptorWriter {
    package let fd: Int32
    package static let standardError = FileDescriptorWriter(fd: 2)
    package func write(_ text: String) {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeMutableBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if n <= 0 { return }
            offset += n
        }
    }
}
