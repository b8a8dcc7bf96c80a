import CGStreamer

/// Calls `onReadable` on the main context whenever a file descriptor has
/// data (or hung up). The handler returns false to stop watching. Removed
/// when released.
public final class FileDescriptorWatch {
    private var sourceID: guint = 0
    private let onReadable: () -> Bool

    public init(fd: Int32, _ onReadable: @escaping () -> Bool) {
        self.onReadable = onReadable
        let box = Unmanaged.passRetained(WeakBox(self)).toOpaque()
        sourceID = g_unix_fd_add_full(G_PRIORITY_DEFAULT, fd, GIOCondition(G_IO_IN.rawValue | G_IO_HUP.rawValue | G_IO_ERR.rawValue), { _, _, data in
            guard let watch = Unmanaged<WeakBox<FileDescriptorWatch>>.fromOpaque(data!).takeUnretainedValue().object else { return 0 }
            return watch.fired() ? 1 : 0
        }, box, { data in
            Unmanaged<WeakBox<FileDescriptorWatch>>.fromOpaque(data!).release()
        })
    }

    public var isActive: Bool { sourceID != 0 }

    private func fired() -> Bool {
        if onReadable() { return true }
        sourceID = 0
        return false
    }

    public func remove() {
        if sourceID != 0 { g_source_remove(sourceID); sourceID = 0 }
    }

    deinit { remove() }
}
