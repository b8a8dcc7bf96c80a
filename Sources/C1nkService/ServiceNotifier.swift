import C1nkGLibBase
import FoundationEssentials
import Glibc

/// systemd's notify protocol (`Type=notify`, `WatchdogSec=`), written
/// directly: one datagram per state to the Unix socket in `$NOTIFY_SOCKET`
/// (a path, or `@name` for the abstract namespace). `READY=1` once, when the
/// answerer is registered with the server; `WATCHDOG=1` from a main-context
/// timer at half of `$WATCHDOG_USEC`, so a hung main loop stops the
/// keep-alives and systemd restarts the service. Without `$NOTIFY_SOCKET`
/// (not under systemd) it does nothing.
public final class ServiceNotifier {
    private let address: String?
    private let fd: Int32
    private var watchdog: GLibTimer?
    public private(set) var isReady = false
    /// Seconds between keep-alives, when systemd asked for them.
    public let watchdogInterval: Double?

    public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        let socketPath = environment["NOTIFY_SOCKET"].flatMap { $0.isEmpty ? nil : $0 }
        address = socketPath
        fd = socketPath == nil ? -1 : socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var interval: Double?
        if let text = environment["WATCHDOG_USEC"], let usec = Double(text), usec > 0 {
            // WATCHDOG_PID, when set, names the process meant.
            if let pid = environment["WATCHDOG_PID"], Int32(pid) != getpid() { interval = nil } else { interval = usec / 2e6 }
        }
        watchdogInterval = socketPath == nil ? nil : interval
    }

    deinit { if fd >= 0 { close(fd) } }

    /// Starts the keep-alives (if systemd asked for them).
    public func startWatchdog() {
        guard let watchdogInterval, watchdog == nil else { return }
        send("WATCHDOG=1")
        watchdog = GLibTimer(after: watchdogInterval, repeats: true) { [weak self] in self?.send("WATCHDOG=1") }
    }

    /// `READY=1` with a status line, the first time only.
    public func ready(status: String) {
        guard !isReady else { return }
        isReady = true
        send("READY=1\nSTATUS=\(status)")
    }

    public func status(_ text: String) { send("STATUS=\(text)") }

    public func stopping() {
        watchdog = nil
        send("STOPPING=1")
    }

    public func reloading() { send("RELOADING=1") }

    /// Sends one notification; failures are logged, never fatal.
    @discardableResult
    public func send(_ state: String) -> Bool {
        guard let address, fd >= 0 else { return false }
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        var path = Array(address.utf8)
        let abstract = path.first == UInt8(ascii: "@")
        if abstract { path[0] = 0 }
        let capacity = MemoryLayout.size(ofValue: addr.sun_path)
        guard path.count < capacity else { return false }
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in
            for (i, byte) in path.enumerated() { raw[i] = byte }
        }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + path.count + (abstract ? 0 : 1))
        let bytes = Array(state.utf8)
        let sent = withUnsafePointer(to: &addr) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { sockaddrPointer in
                bytes.withUnsafeBytes { sendto(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL), sockaddrPointer, length) }
            }
        }
        if sent < 0 { Log.app.debug("sd_notify \(state): \(String(cString: strerror(errno)))") }
        return sent >= 0
    }
}
