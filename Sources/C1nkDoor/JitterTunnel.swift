import C1nkGLib
import FoundationEssentials
import Glibc
import Synchronization

/// A point-to-point link made of two TUN devices with a relay between them
/// that holds every IP packet for a random `delayMs ± spreadMs` (uniform),
/// each packet on its own, so later ones may overtake: jitter as a radio
/// link has it, which this kernel cannot make without `netem`. One device
/// stays in this namespace, the other is moved into the phone's; the relay
/// reads and writes whole packets on a thread of its own.
final class JitterTunnel: Sendable {
    private struct Held {
        let departure: Double
        let to: Int32
        let bytes: [UInt8]
    }

    private struct State {
        var held: [Held] = []
        var stopped = false
        var random = SplitMix(seed: 30)
    }

    private let host: Int32
    private let phone: Int32
    private let delay: Double
    private let spread: Double
    private let state = Mutex(State())
    private let wake: (read: Int32, write: Int32)

    init(hostInterface: String, phoneInterface: String, delayMs: Int, spreadMs: Int) throws {
        host = try Self.openTUN(named: hostInterface)
        guard let phoneEnd = try? Self.openTUN(named: phoneInterface) else {
            close(host)
            throw DevToolsError("cannot make the TUN device \(phoneInterface)")
        }
        phone = phoneEnd
        delay = Double(delayMs) / 1000
        spread = Double(spreadMs) / 1000
        var ends: [Int32] = [-1, -1]
        _ = pipe(&ends)
        wake = (ends[0], ends[1])
        for fd in [host, phone, wake.read] { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
        detachThread(named: "c1nk-jitter-tunnel") { [self] in run() }
    }

    func stop() {
        let first = state.withLock { state -> Bool in
            defer { state.stopped = true }
            return !state.stopped
        }
        if first {
            var one: UInt8 = 1
            _ = write(wake.write, &one, 1)
        }
    }

    /// A TUN device without packet information (IFF_TUN | IFF_NO_PI).
    private static func openTUN(named name: String) throws -> Int32 {
        let fd = open("/dev/net/tun", O_RDWR)
        guard fd >= 0 else { throw DevToolsError("cannot open /dev/net/tun: \(String(cString: strerror(errno)))") }
        var request = [UInt8](repeating: 0, count: 40)
        for (index, byte) in name.utf8.prefix(15).enumerated() { request[index] = byte }
        let flags: UInt16 = 0x0001 | 0x1000
        request[16] = UInt8(flags & 0xff)
        request[17] = UInt8(flags >> 8)
        let tunSetInterface: UInt = 0x4004_54ca
        let result = request.withUnsafeMutableBytes { ioctl(fd, tunSetInterface, $0.baseAddress!) }
        guard result == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw DevToolsError("TUNSETIFF \(name): \(reason)")
        }
        return fd
    }

    private static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    private func run() {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let (stopped, next) = state.withLock { ($0.stopped, $0.held.first?.departure) }
            if stopped { break }
            let timeout = next.map { max(0, Int32((($0 - Self.now()) * 1000).rounded(.up))) } ?? 200
            var fds = [pollfd(fd: host, events: Int16(POLLIN), revents: 0), pollfd(fd: phone, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0)]
            _ = poll(&fds, 3, timeout)
            for (index, from) in [host, phone].enumerated() where fds[index].revents & Int16(POLLIN) != 0 {
                while true {
                    let count = read(from, &buffer, buffer.count)
                    guard count > 0 else { break }
                    let packet = Array(buffer[0..<count])
                    state.withLock { state in
                        guard state.held.count < 4096 else { return }
                        let departure = Self.now() + max(0, delay + spread * (2 * state.random.nextUnit() - 1))
                        let held = Held(departure: departure, to: from == host ? phone : host, bytes: packet)
                        let index = state.held.firstIndex { $0.departure > departure } ?? state.held.count
                        state.held.insert(held, at: index)
                    }
                }
            }
            let due = state.withLock { state -> [Held] in
                let now = Self.now()
                let count = state.held.prefix { $0.departure <= now }.count
                defer { state.held.removeFirst(count) }
                return Array(state.held.prefix(count))
            }
            for packet in due { _ = packet.bytes.withUnsafeBytes { write(packet.to, $0.baseAddress, $0.count) } }
        }
        for fd in [host, phone, wake.read, wake.write] { close(fd) }
    }
}
