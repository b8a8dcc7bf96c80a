import CGStreamer
import Glibc

/// Logging through GStreamer debug categories, so c1nk's lines interleave with
/// GStreamer's own: `GST_DEBUG=c1nk*:5` shows everything of ours.
/// Warnings and errors are meant for the person running the command and also
/// go to standard error, whatever `GST_DEBUG` says.
public struct Log: @unchecked Sendable {
    public enum Level { case error, warning, info, debug, trace }

    private let category: UnsafeMutablePointer<GstDebugCategory>?
    public let name: String

    public init(_ name: String, description: String) {
        GStreamer.initialize()
        self.name = name
        category = c1nk_debug_category_new(name, description)
    }

    public static let signaling = Log("c1nk-signal", description: "c1nk signaling client")
    public static let server = Log("c1nk-server", description: "c1nk local signaling server")
    public static let call = Log("c1nk-call", description: "c1nk call manager")
    public static let media = Log("c1nk-media", description: "c1nk webrtcbin media session")
    public static let app = Log("c1nk", description: "c1nk commands")

    /// When false, warnings and errors are not echoed to standard error
    /// (tests that provoke them on purpose keep their output readable).
    nonisolated(unsafe) public static var echoToStandardError = true

    public func error(_ message: @autoclosure () -> String, file: String = #fileID, function: String = #function, line: Int = #line) {
        emit(GST_LEVEL_ERROR, "error", message(), file, function, line)
    }
    public func warning(_ message: @autoclosure () -> String, file: String = #fileID, function: String = #function, line: Int = #line) {
        emit(GST_LEVEL_WARNING, "warning", message(), file, function, line)
    }
    public func info(_ message: @autoclosure () -> String, file: String = #fileID, function: String = #function, line: Int = #line) {
        emit(GST_LEVEL_INFO, nil, message(), file, function, line)
    }
    public func debug(_ message: @autoclosure () -> String, file: String = #fileID, function: String = #function, line: Int = #line) {
        emit(GST_LEVEL_DEBUG, nil, message(), file, function, line)
    }

    private func emit(_ level: GstDebugLevel, _ echo: String?, _ message: @autoclosure () -> String,
                      _ file: String, _ function: String, _ line: Int) {
        let enabled = category.map { gst_debug_category_get_threshold($0).rawValue >= level.rawValue } ?? false
        guard enabled || (echo != nil && Log.echoToStandardError) else { return }
        let text = message()
        if enabled { c1nk_debug_log(category, level, file, function, gint(line), text) }
        if let echo, Log.echoToStandardError {
            FileDescriptorWriter.standardError.write(Journal.prefix(level == GST_LEVEL_ERROR ? .error : .warning) + "\(name): \(echo): \(text)\n")
        }
    }
}

/// Unbuffered writes to a file descriptor (stderr must not wait for a flush).
struct FileDescriptorWriter {
    let fd: Int32
    static let standardError = FileDescriptorWriter(fd: 2)
    func write(_ text: String) {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeMutableBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if n <= 0 { return }
            offset += n
        }
    }
}
