import FoundationEssentials
import Glibc

/// The calls this machine can carry at once, shared by every answerer
/// process on it (`--max-calls`, `--calls-dir`). Slot `i` is the file
/// `slot-i` in `directory`; a call holds its slot with an exclusive,
/// non-blocking `flock` on it for as long as the call lasts. The kernel drops
/// the lock when the descriptor closes, so a process that dies frees its slot:
/// no stale slots, nothing to clean up. A claim tries the lowest slot first,
/// so processes with different limits share one count: a process with limit
/// N refuses once slots 0..N-1 are taken, whoever took them.
public final class CallSlots {
    /// A slot held; `release()` (or the last reference going) frees it.
    public final class Slot {
        public let index: Int
        private var fd: Int32

        init(index: Int, fd: Int32) {
            self.index = index
            self.fd = fd
        }

        public var isHeld: Bool { fd >= 0 }

        public func release() {
            guard fd >= 0 else { return }
            close(fd)
            fd = -1
        }

        deinit { release() }
    }

    /// A calls folder that cannot be used (its path, what went wrong).
    public struct Unusable: Error, CustomStringConvertible {
        public let description: String
    }

    public let directory: String
    public let limit: Int

    /// Creates `directory` (owner-only) when it is missing; refuses one that
    /// is not a folder or cannot be written.
    public init(directory: String, limit: Int) throws {
        precondition(limit >= 1, "a limit of at least one call")
        self.directory = directory
        self.limit = limit
        try Self.makeFolder(directory)
    }

    /// Takes the lowest free slot at once, never waiting; nil when all
    /// `limit` slots are taken. Costs at most `limit` opens: microseconds.
    public func claimSlot() -> Slot? {
        for index in 0..<limit {
            let fd = open(path(of: index), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
            guard fd >= 0 else { continue }
            if flock(fd, LOCK_EX | LOCK_NB) == 0 { return Slot(index: index, fd: fd) }
            close(fd)
        }
        return nil
    }

    public func path(of index: Int) -> String { directory + "/slot-\(index)" }

    /// The default folder: `/run/c1nk/calls` as root, else
    /// `$XDG_RUNTIME_DIR/c1nk-calls`, else `$XDG_STATE_HOME/c1nk/calls`
    /// (`~/.local/state/c1nk/calls`).
    public static func defaultDirectory(environment: [String: String] = ProcessInfo.processInfo.environment,
                                        isRoot: Bool = geteuid() == 0) -> String {
        if isRoot { return "/run/c1nk/calls" }
        if let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") { return runtime + "/c1nk-calls" }
        if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") { return state + "/c1nk/calls" }
        return (environment["HOME"] ?? FileManager.default.homeDirectoryForCurrentUser.path) + "/.local/state/c1nk/calls"
    }

    private static func makeFolder(_ directory: String) throws {
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        } catch {
            // The system's reason (Foundation's localized text needs ICU, which the answerer does not link).
            let reason = ((error as? CocoaError)?.underlying as? POSIXError).map { String(cString: strerror($0.code.rawValue)) } ?? "\(error)"
            throw Unusable(description: "--calls-dir \(directory): cannot create it (\(reason))")
        }
        var isFolder = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isFolder), isFolder else {
            throw Unusable(description: "--calls-dir \(directory) is not a folder")
        }
        guard access(directory, W_OK | X_OK) == 0 else {
            throw Unusable(description: "--calls-dir \(directory): cannot write there; give a folder this user owns")
        }
    }
}
