import C1nkGLib
import FoundationEssentials
import Glibc

/// A TCP port on this host's loopback that leads to a port on another
/// network namespace's loopback: how DevTools reaches a browser that lives
/// in a phone's namespace (headless Chromium listens on its own 127.0.0.1
/// only). Each connection is carried by a thread that joined that
/// namespace (`setns` is per thread) before connecting.
final class NamespaceForward: @unchecked Sendable {
    let port: UInt16
    private let listener: Int32
    private let namespace: String
    private let target: UInt16

    init(namespace: String, port target: UInt16) throws {
        self.namespace = namespace
        self.target = target
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = Self.loopback(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard fd >= 0, bound, listen(fd, 8) == 0 else {
            close(fd)
            throw DevToolsError("cannot listen on loopback for the phone's DevTools")
        }
        listener = fd
        port = UInt16(bigEndian: address.sin_port)
        detachThread(named: "c1nk-netns-forward") { [self] in accepting() }
    }

    /// Ends the listener; connections end with their browser.
    func stop() { shutdown(listener, Int32(SHUT_RDWR)) }

    static func loopback(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }

    private func accepting() {
        while true {
            let client = accept(listener, nil, nil)
            guard client >= 0 else {
                if errno == EINTR { continue }
                close(listener)
                return
            }
            detachThread { [self] in carry(client) }
        }
    }

    /// Joins the namespace, connects there and copies both ways until either side closes.
    private func carry(_ client: Int32) {
        defer { close(client) }
        guard Self.join(namespace) else { return }
        let upstream = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard upstream >= 0 else { return }
        defer { close(upstream) }
        var address = Self.loopback(port: target)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(upstream, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
        guard connected else { return }
        var buffer = [UInt8](repeating: 0, count: 65_536)
        var fds = [pollfd(fd: client, events: Int16(POLLIN), revents: 0), pollfd(fd: upstream, events: Int16(POLLIN), revents: 0)]
        while poll(&fds, 2, -1) >= 0 {
            for (index, pair) in [(client, upstream), (upstream, client)].enumerated()
            where fds[index].revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 {
                let count = read(pair.0, &buffer, buffer.count)
                guard count > 0 else { return }
                var sent = 0
                while sent < count {
                    let written = buffer.withUnsafeBytes { write(pair.1, $0.baseAddress! + sent, count - sent) }
                    guard written > 0 else { return }
                    sent += written
                }
            }
        }
    }

    /// `setns(2)` into a named network namespace, for the calling thread only.
    private static func join(_ namespace: String) -> Bool {
        typealias SetNamespace = @convention(c) (Int32, Int32) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "setns") else { return false }
        let setNamespace = unsafeBitCast(symbol, to: SetNamespace.self)
        let fd = open("/var/run/netns/" + namespace, O_RDONLY)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        let newNetworkNamespace: Int32 = 0x4000_0000
        return setNamespace(fd, newNetworkNamespace) == 0
    }
}
