import Foundation
import Glibc

/// An RTSP client that asks for the stream over TCP (interleaved), plays it,
/// and then never reads again: its receive buffer fills, then the server's
/// send queue for it. On its own thread (the server's socket is on the main context).
final class RTSPStalledClient: @unchecked Sendable {
    private let lock = NSLock()
    private var _playing = false
    private var _failure: String?
    private var fd: Int32 = -1

    var playing: Bool { lock.lock(); defer { lock.unlock() }; return _playing }
    var failure: String? { lock.lock(); defer { lock.unlock() }; return _failure }

    init(port: Int) {
        Thread { [self] in
            do { try run(port: port) } catch { lock.lock(); _failure = "\(error)"; lock.unlock() }
        }.start()
    }

    deinit { if fd >= 0 { close(fd) } }

    /// Bytes waiting, unread, in its receive buffer.
    var unread: Int {
        lock.lock()
        defer { lock.unlock() }
        var count: Int32 = 0
        return fd >= 0 && ioctl(fd, UInt(FIONREAD), &count) == 0 ? Int(count) : 0
    }

    private func run(port: Int) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        lock.lock(); self.fd = fd; lock.unlock()
        var small: Int32 = 2048
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw RTSPTestError("connect: \(errno)") }
        let base = "rtsp://127.0.0.1:\(port)/door"
        let description = try request(fd, "DESCRIBE \(base) RTSP/1.0\r\nCSeq: 1\r\nAccept: application/sdp\r\n\r\n")
        let controls = description.components(separatedBy: "\r\n").filter { $0.hasPrefix("a=control:stream=") }
            .map { String($0.dropFirst("a=control:".count)) }
        guard !controls.isEmpty else { throw RTSPTestError("no streams in \(description)") }
        var session = ""
        for (index, control) in controls.enumerated() {
            let reply = try request(fd, "SETUP \(base)/\(control) RTSP/1.0\r\nCSeq: \(index + 2)\r\n"
                + "Transport: RTP/AVP/TCP;unicast;interleaved=\(2 * index)-\(2 * index + 1)\r\n"
                + (session.isEmpty ? "" : "Session: \(session)\r\n") + "\r\n")
            guard let line = reply.components(separatedBy: "\r\n").first(where: { $0.lowercased().hasPrefix("session:") }) else {
                throw RTSPTestError("no session in \(reply)")
            }
            session = line.dropFirst("session:".count).trimmingCharacters(in: .whitespaces).components(separatedBy: ";")[0]
        }
        _ = try request(fd, "PLAY \(base)/ RTSP/1.0\r\nCSeq: 9\r\nSession: \(session)\r\n\r\n")
        lock.lock(); _playing = true; lock.unlock()
        // And never reads again.
    }

    /// Sends a request and reads its response (headers and body).
    private func request(_ fd: Int32, _ text: String) throws -> String {
        let bytes = Array(text.utf8)
        guard send(fd, bytes, bytes.count, Int32(MSG_NOSIGNAL)) == bytes.count else { throw RTSPTestError("send: \(errno)") }
        var data: [UInt8] = []
        var byte: UInt8 = 0
        while !(data.count >= 4 && data.suffix(4) == [13, 10, 13, 10]) {
            guard recv(fd, &byte, 1, 0) == 1 else { throw RTSPTestError("closed after \(String(decoding: data, as: UTF8.self))") }
            data.append(byte)
        }
        var head = String(decoding: data, as: UTF8.self)
        guard head.hasPrefix("RTSP/1.0 200") else { throw RTSPTestError("refused: \(head)") }
        if let line = head.components(separatedBy: "\r\n").first(where: { $0.lowercased().hasPrefix("content-length:") }),
           let length = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) {
            var body = [UInt8](repeating: 0, count: length)
            var read = 0
            while read < length {
                let n = body.withUnsafeMutableBytes { recv(fd, $0.baseAddress! + read, length - read, 0) }
                guard n > 0 else { throw RTSPTestError("body cut") }
                read += n
            }
            head += String(decoding: body, as: UTF8.self)
        }
        return head
    }
}

struct RTSPTestError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
