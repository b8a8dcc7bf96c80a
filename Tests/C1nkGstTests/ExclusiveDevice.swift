import Foundation
import Glibc
import Synchronization

/// A stand-in for an exclusive audio device (`alsasink device=hw:0`): a TCP
/// port on 127.0.0.1 that takes one writer at a time. While a writer holds
/// it, the port does not listen, so a second `tcpclientsink` is refused and
/// fails to start, as a second opener of a hardware device does.
final class ExclusiveDevice: @unchecked Sendable {
    let port: UInt16
    private let state = Mutex(State())
    private var thread: Thread?
    private let stopping = Atomic<Bool>(false)

    struct State {
        var connections = 0
        var bytes = 0
    }

    /// Writers that have held the device so far.
    var connections: Int { state.withLock { $0.connections } }
    /// Bytes written to it so far.
    var bytes: Int { state.withLock { $0.bytes } }

    /// A `tcpclientsink` description that writes to this device.
    var sink: String { "tcpclientsink host=127.0.0.1 port=\(port) sync=true" }

    init() throws {
        let probe = try Self.listen(port: 0)
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(probe, $0, &length) }
        }
        port = UInt16(bigEndian: address.sin_port)
        let first = probe
        thread = Thread { [self] in serve(first) }
        thread?.start()
    }

    func stop() { stopping.store(true, ordering: .relaxed) }

    private func serve(_ initial: Int32) {
        var listener = initial
        while !stopping.load(ordering: .relaxed) {
            if listener < 0 {
                guard let again = try? Self.listen(port: port) else { usleep(10_000); continue }
                listener = again
            }
            var pollfd = Glibc.pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            guard poll(&pollfd, 1, 100) > 0 else { continue }
            let client = accept(listener, nil, nil)
            guard client >= 0 else { continue }
            // Held: stop listening, so a second opener is refused.
            close(listener)
            listener = -1
            state.withLock { $0.connections += 1 }
            var buffer = [UInt8](repeating: 0, count: 65536)
            while !stopping.load(ordering: .relaxed) {
                var clientPoll = Glibc.pollfd(fd: client, events: Int16(POLLIN), revents: 0)
                guard poll(&clientPoll, 1, 100) >= 0 else { break }
                if clientPoll.revents == 0 { continue }
                let count = read(client, &buffer, buffer.count)
                if count <= 0 { break }
                state.withLock { $0.bytes += count }
            }
            close(client)
        }
        if listener >= 0 { close(listener) }
    }

    private static func listen(port: UInt16) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, Glibc.listen(fd, 1) == 0 else {
            close(fd)
            throw NSError(domain: "ExclusiveDevice", code: Int(errno))
        }
        return fd
    }
}
