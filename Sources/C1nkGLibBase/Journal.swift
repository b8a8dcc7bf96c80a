import FoundationEssentials
import Glibc

/// Priorities for lines on standard error when it goes to the systemd
/// journal: `$JOURNAL_STREAM` names stderr's device and inode, and then each
/// line starts with `<N>` (sd-daemon(3)), which journald turns into the
/// entry's priority (`journalctl -p warning` works). Elsewhere lines are plain.
public enum Journal {
    public enum Priority: Int, Sendable {
        case error = 3, warning = 4, notice = 5, info = 6, debug = 7
    }

    /// Whether standard error is the journal stream.
    public static let isStandardError: Bool = {
        guard let value = ProcessInfo.processInfo.environment["JOURNAL_STREAM"] else { return false }
        let parts = value.split(separator: ":")
        guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]) else { return false }
        var info = stat()
        guard fstat(2, &info) == 0 else { return false }
        return UInt64(info.st_dev) == device && UInt64(info.st_ino) == inode
    }()

    /// `<N>` before a line when standard error is the journal, else nothing.
    public static func prefix(_ priority: Priority) -> String {
        isStandardError ? "<\(priority.rawValue)>" : ""
    }
}
