import CGLib
import Glibc

/// Runs a closure on the main context when the process receives a Unix signal
/// (SIGINT, SIGTERM): GLib turns the signal into an ordinary event, so the
/// handler may do anything, unlike a raw signal handler.
public final class UnixSignalWatch {
    private var sourceID: guint = 0

    public init(signal: Int32, _ handler: @escaping () -> Void) {
        let box = Unmanaged.passRetained(ClosureBox(handler)).toOpaque()
        let source = g_unix_signal_source_new(signal)!
        g_source_set_priority(source, G_PRIORITY_HIGH)
        g_source_set_callback(source, { data in
            Unmanaged<ClosureBox<() -> Void>>.fromOpaque(data!).takeUnretainedValue().value()
            return 1 // keep watching: a second Ctrl-C is handled too
        }, box, { data in
            Unmanaged<ClosureBox<() -> Void>>.fromOpaque(data!).release()
        })
        sourceID = MainContext.attach(source)
    }

    deinit { MainContext.remove(sourceID) }
}

/// Reads lines from a file descriptor (standard input) on the main context
/// without blocking it. End of input is reported once and the watch stops.
public final class LineReader {
    private var sourceID: guint = 0
    private var pending: [UInt8] = []
    private let fd: Int32
    private let onLine: (String) -> Void
    private let onEnd: () -> Void

    public init(fd: Int32, onLine: @escaping (String) -> Void, onEnd: @escaping () -> Void = {}) {
        self.fd = fd
        self.onLine = onLine
        self.onEnd = onEnd
        let box = Unmanaged.passRetained(WeakBox(self)).toOpaque()
        let dispatch: GUnixFDSourceFunc = { _, _, data in
            guard let reader = Unmanaged<WeakBox<LineReader>>.fromOpaque(data!).takeUnretainedValue().object else { return 0 }
            return reader.readAvailable() ? 1 : 0
        }
        sourceID = MainContext.attachDescriptorWatch(fd, GIOCondition(G_IO_IN.rawValue | G_IO_HUP.rawValue | G_IO_ERR.rawValue), dispatch, box) { data in
            Unmanaged<WeakBox<LineReader>>.fromOpaque(data!).release()
        }
    }

    /// Returns false at end of input.
    private func readAvailable() -> Bool {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if count <= 0 {
            if !pending.isEmpty { onLine(String(decoding: pending, as: UTF8.self)); pending.removeAll() }
            sourceID = 0
            onEnd()
            return false
        }
        pending.append(contentsOf: buffer[0..<count])
        while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
            let line = String(decoding: pending[..<newline], as: UTF8.self)
            pending.removeSubrange(...newline)
            onLine(line)
        }
        return true
    }

    deinit { MainContext.remove(sourceID) }
}
