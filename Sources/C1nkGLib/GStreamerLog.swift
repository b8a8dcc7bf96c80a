import CGStreamer
import Synchronization

/// `Log`'s lines through GStreamer's debug log, one debug category per
/// `Log` name, so c1nk's lines interleave with GStreamer's own and obey
/// `GST_DEBUG` and `--gst-debug` as they change. Installed by
/// `GStreamer.initialize()`.
final class GStreamerLog: LogDestination, Sendable {
    static let shared = GStreamerLog()

    private struct Category: @unchecked Sendable { let pointer: UnsafeMutablePointer<GstDebugCategory> }
    private let categories = Mutex<[String: Category]>([:])

    private func category(_ log: Log) -> UnsafeMutablePointer<GstDebugCategory>? {
        categories.withLock { table in
            if let known = table[log.name] { return known.pointer }
            guard let made = c1nk_debug_category_new(log.name, log.description) else { return nil }
            table[log.name] = Category(pointer: made)
            return made
        }
    }

    func isEnabled(_ log: Log, _ level: Log.Level) -> Bool {
        guard let category = category(log) else { return false }
        return gst_debug_category_get_threshold(category).rawValue >= level.rawValue
    }

    func write(_ log: Log, _ level: Log.Level, _ message: String, file: String, function: String, line: Int) {
        c1nk_debug_log(category(log), GstDebugLevel(rawValue: UInt32(level.rawValue)), file, function, gint(line), message)
    }
}
