import CGLib

/// Calls a closure on the main context (`MainContext`) when a file descriptor is readable
/// or writable (`g_unix_fd_add`). The handler returns false to stop watching;
/// releasing the watch stops it too. The descriptor is not closed here.
public final class FileDescriptorWatch {
    public struct Condition: OptionSet, Sendable {
        public let rawValue: UInt32
        public init(rawValue: UInt32) { self.rawValue = rawValue }
        public static let readable = Condition(rawValue: G_IO_IN.rawValue)
        public static let writable = Condition(rawValue: G_IO_OUT.rawValue)
        public static let hangUp = Condition(rawValue: G_IO_HUP.rawValue)
        public static let error = Condition(rawValue: G_IO_ERR.rawValue)
    }

    private var sourceID: guint = 0
    private let handler: (Condition) -> Bool

    public init(fd: Int32, _ condition: Condition, _ handler: @escaping (Condition) -> Bool) {
        self.handler = handler
        let box = Unmanaged.passRetained(WeakBox(self)).toOpaque()
        let dispatch: GUnixFDSourceFunc = { _, condition, data in
            guard let watch = Unmanaged<WeakBox<FileDescriptorWatch>>.fromOpaque(data!).takeUnretainedValue().object else { return 0 }
            let keep = watch.handler(Condition(rawValue: condition.rawValue))
            if !keep { watch.sourceID = 0 }
            return keep ? 1 : 0
        }
        sourceID = MainContext.attachDescriptorWatch(fd, GIOCondition(condition.union([.hangUp, .error]).rawValue), dispatch, box) { data in
            Unmanaged<WeakBox<FileDescriptorWatch>>.fromOpaque(data!).release()
        }
    }

    public var isActive: Bool { sourceID != 0 }

    public func cancel() {
        if sourceID != 0 { MainContext.remove(sourceID); sourceID = 0 }
    }

    deinit { cancel() }
}
