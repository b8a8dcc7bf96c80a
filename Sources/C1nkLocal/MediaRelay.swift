import C1nkGLibBase
import FoundationEssentials
import Glibc
import Synchronization

/// A UDP relay on loopback that every media path between a door and the
/// answerers crosses, so a test can put a home router's uplink between a
/// door it does not control (a browser) and the answerer.
///
/// Each real address E (a candidate of either side, or a source seen later)
/// gets a relay socket R(E); candidates are rewritten to name R(E). A packet
/// from S arriving at R(F) leaves from R(S) to F, so each side sees the other
/// at the rewritten addresses and ICE checks pass. What the door sends goes
/// through `uplink` when it is set. Loopback candidates alone pass: this
/// relay never sends beyond 127.0.0.1.
///
/// Packets move on a thread of the relay's own, as they would on a router:
/// a busy main loop in this process never delays them (a delay-based
/// congestion controller would read that as a queue). Rewriting is called
/// on any thread.
public final class MediaRelay: Sendable {
    public enum Side: Sendable { case door, app }

    struct Endpoint: Sendable {
        let real: sockaddr_in
        let side: Side
        let fd: Int32
        let port: UInt16
    }

    struct Queued {
        let departure: Double
        let from: Int32
        let to: sockaddr_in
        let bytes: [UInt8]
    }

    struct State {
        var endpoints: [UInt64: Endpoint] = [:]
        var uplink: UplinkBottleneck?
        var queue: [Queued] = []
        var packetsFromDoor = 0
        var packetsToDoor = 0
        /// Faults (`MediaRelay+Faults.swift`): every packet dropped until this time…
        var blackoutUntil = 0.0
        var packetsBlackedOut = 0
        /// …and the next packets from the door cut to half their length.
        var doorPacketsToTruncate = 0
        var stopped = false
    }

    let state = Mutex(State())
    /// A pipe that wakes the relay's thread when a socket is added or it must stop.
    private let wake: (read: Int32, write: Int32)

    public init() {
        var ends: [Int32] = [-1, -1]
        _ = pipe(&ends)
        for end in ends { _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK) }
        wake = (ends[0], ends[1])
        detachThread(named: "c1nk-media-relay") { [self] in run() }
    }

    deinit { stop() }

    /// The door's uplink; nil forwards at once.
    public var uplink: UplinkBottleneck? {
        get { state.withLock { $0.uplink } }
        set { state.withLock { $0.uplink = newValue } }
    }
    public var packetsFromDoor: Int { state.withLock { $0.packetsFromDoor } }
    public var packetsToDoor: Int { state.withLock { $0.packetsToDoor } }

    /// Ends the thread and closes every socket.
    public func stop() {
        let first = state.withLock { state -> Bool in
            defer { state.stopped = true }
            return !state.stopped
        }
        if first { signalWake() }
    }

    private func signalWake() {
        var one: UInt8 = 1
        _ = write(wake.write, &one, 1)
    }

    // MARK: - Rewriting what the two sides say

    /// The candidate as the other side must see it, or nil to withhold it
    /// (not UDP, or not on loopback).
    public func rewrite(candidate: String, from side: Side) -> String? {
        var fields = candidate.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
        guard fields.count >= 8, fields[2].lowercased() == "udp", fields[4].hasPrefix("127."),
              let port = UInt16(fields[5]), let endpoint = endpoint(host: fields[4], port: port, side: side) else { return nil }
        fields[4] = "127.0.0.1"
        fields[5] = String(endpoint.port)
        return fields.joined(separator: " ")
    }

    /// An offer or answer with its `a=candidate` lines rewritten (or removed).
    public func rewrite(sdp: String, from side: Side) -> String {
        let lines = sdp.components(separatedBy: "\r\n").compactMap { line -> String? in
            guard line.hasPrefix("a=candidate:") else { return line }
            return rewrite(candidate: String(line.dropFirst(2)), from: side).map { "a=" + $0 }
        }
        return lines.joined(separator: "\r\n")
    }

    // MARK: - Sockets

    /// An address and port as one number (looked up for every packet).
    static func key(_ address: sockaddr_in) -> UInt64 { UInt64(address.sin_addr.s_addr) << 16 | UInt64(address.sin_port) }

    private func endpoint(host: String, port: UInt16, side: Side) -> Endpoint? {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else { return nil }
        let endpoint = state.withLock { Self.endpoint(for: address, side: side, in: &$0) }
        signalWake()
        return endpoint
    }

    /// The relay socket for `real`, made and bound to loopback when new.
    static func endpoint(for real: sockaddr_in, side: Side, in state: inout State) -> Endpoint? {
        if let known = state.endpoints[key(real)] { return known }
        guard !state.stopped else { return nil }
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        local.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                bind(fd, address, length) == 0 && getsockname(fd, address, &length) == 0
            }
        }
        guard bound else { close(fd); return nil }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        let endpoint = Endpoint(real: real, side: side, fd: fd, port: UInt16(bigEndian: local.sin_port))
        state.endpoints[key(real)] = endpoint
        return endpoint
    }

    // MARK: - The relay's thread

    private func run() {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let (endpoints, nextDeparture, stopped) = state.withLock { ($0.endpoints.values.map { $0 }, $0.queue.first?.departure, $0.stopped) }
            if stopped { break }
            var fds = [pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0)] + endpoints.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
            let timeout = nextDeparture.map { Int32((max(0, $0 - Self.now()) * 1000).rounded(.up)) } ?? 1000
            _ = poll(&fds, nfds_t(fds.count), timeout)
            if fds[0].revents != 0 {
                var drained = [UInt8](repeating: 0, count: 64)
                _ = read(wake.read, &drained, drained.count)
            }
            for (index, endpoint) in endpoints.enumerated() where fds[index + 1].revents & Int16(POLLIN) != 0 {
                receive(on: endpoint, buffer: &buffer)
            }
            sendDue()
        }
        state.withLock { state in
            state.endpoints.values.forEach { close($0.fd) }
            state.endpoints.removeAll()
            state.queue.removeAll()
        }
        close(wake.read)
        close(wake.write)
    }

    static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    private func receive(on target: Endpoint, buffer: inout [UInt8]) {
        while true {
            var source = sockaddr_in()
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let count = withUnsafeMutablePointer(to: &source) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { recvfrom(target.fd, &buffer, buffer.count, 0, $0, &length) }
            }
            guard count > 0 else { return }
            var bytes = Array(buffer[0..<count])
            let now = Self.now()
            // A source no candidate named (peer-reflexive) belongs to the other side.
            let immediate: Int32? = state.withLock { state in
                guard let sender = Self.endpoint(for: source, side: target.side == .door ? .app : .door, in: &state) else { return nil }
                guard now >= state.blackoutUntil else {
                    state.packetsBlackedOut += 1
                    return nil
                }
                guard sender.side == .door else {
                    state.packetsToDoor += 1
                    return sender.fd
                }
                state.packetsFromDoor += 1
                if state.doorPacketsToTruncate > 0 {
                    state.doorPacketsToTruncate -= 1
                    bytes.removeLast(bytes.count / 2)
                }
                guard state.uplink != nil else { return sender.fd }
                if let departure = state.uplink!.admit(bytes: bytes.count, at: now) {
                    state.queue.append(Queued(departure: departure, from: sender.fd, to: target.real, bytes: bytes))
                }
                return nil
            }
            if let immediate { Self.send(bytes, from: immediate, to: target.real) }
        }
    }

    private func sendDue() {
        let now = Self.now()
        let due: [Queued] = state.withLock { state in
            let count = state.queue.prefix { $0.departure <= now + 0.0002 }.count
            defer { state.queue.removeFirst(count) }
            return Array(state.queue.prefix(count))
        }
        for packet in due { Self.send(packet.bytes, from: packet.from, to: packet.to) }
    }

    static func send(_ bytes: [UInt8], from fd: Int32, to address: sockaddr_in) {
        var destination = address
        _ = withUnsafePointer(to: &destination) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { sendto(fd, bytes, bytes.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
    }
}
