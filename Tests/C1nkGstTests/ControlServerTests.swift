import Foundation
import Glibc
import XCTest
@testable import C1nkGLib
@testable import C1nkService

/// The control socket for home automation: real Unix sockets, clients in
/// this process, the server on the main context.
final class ControlServerTests: XCTestCase {
    /// A non-blocking client; reads are pumped by the test on the main context.
    final class Client {
        let fd: Int32
        var received = ""

        init(_ path: String, receiveBuffer: Int32? = nil) throws {
            fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            if var size = receiveBuffer { setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size)) }
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { raw in for (i, b) in path.utf8.enumerated() { raw[i] = b } }
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            guard connected == 0 else { throw ControlError("connect: \(String(cString: strerror(errno)))") }
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        }

        deinit { close(fd) }

        /// Sends all of `text`, letting the main context run while the socket is full.
        func send(_ text: String) {
            var bytes = Array(text.utf8)[...]
            while !bytes.isEmpty {
                let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                if n > 0 { bytes = bytes.dropFirst(n) } else if errno == EAGAIN { MainContext.spin(0.005) } else { return }
            }
        }

        /// Reads what has arrived; false once the server closed the connection.
        @discardableResult
        func read() -> Bool {
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                if n > 0 { received += String(decoding: buffer[0..<n], as: UTF8.self); continue }
                return n < 0 && errno == EAGAIN
            }
        }

        var lines: [[String: Any]] {
            received.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        }
    }

    var server: ControlServer!
    var commands: [String] = []

    override func setUpWithError() throws {
        server = try ControlServer(path: temporaryDirectory() + "/control.sock")
        server.onCommand = { [unowned self] word in
            self.commands.append(word)
            return word == "open" ? nil : "unknown command '\(word)'"
        }
    }

    override func tearDown() { server.stop() }

    func testCommandsGetAnAnswerAndEveryClientGetsTheEvents() throws {
        var info = stat()
        XCTAssertEqual(stat(server.path, &info), 0)
        XCTAssertEqual(info.st_mode & 0o777, 0o600, "owner-only by default")
        let a = try Client(server.path)
        let b = try Client(server.path)
        waitUntil("two clients") { server.clientCount == 2 }
        a.send("{\"command\":\"open\"}\n{\"command\":\"dance\"}\n")
        waitUntil("two replies") { a.read(); return a.lines.count == 2 }
        XCTAssertEqual(a.lines[0]["ok"] as? Bool, true)
        XCTAssertEqual(a.lines[1]["ok"] as? Bool, false)
        XCTAssertEqual(a.lines[1]["error"] as? String, "unknown command 'dance'")
        XCTAssertEqual(commands, ["open", "dance"])
        server.broadcast(["event": "ringing", "callId": "c1", "doorName": "Hlavný vchod"])
        waitUntil("the event at both") { a.read(); b.read(); return a.lines.count == 3 && b.lines.count == 1 }
        XCTAssertEqual(b.lines[0]["doorName"] as? String, "Hlavný vchod")
        XCTAssertTrue(b.received.hasSuffix("\n"), "one JSON object per line")
    }

    func testGarbageGetsAnErrorAndTheClientStays() throws {
        let client = try Client(server.path)
        client.send("hello\n{\"cmd\":\"open\"}\n[1,2]\n\n{\"command\":\"open\"}\n")
        waitUntil("four replies") { client.read(); return client.lines.count == 4 }
        XCTAssertEqual(client.lines.prefix(3).map { $0["ok"] as? Bool }, [false, false, false])
        XCTAssertTrue((client.lines[0]["error"] as? String ?? "").contains("{\"command\":\"open\"}"), "\(client.lines[0])")
        XCTAssertEqual(client.lines[3]["ok"] as? Bool, true, "after garbage, commands still work")
        XCTAssertEqual(commands, ["open"])
    }

    /// A 10 MB line is refused and its sender dropped; another client is unaffected.
    func testAHugeLineDropsOnlyItsSender() throws {
        let bystander = try Client(server.path)
        let flood = try Client(server.path)
        waitUntil("two clients") { server.clientCount == 2 }
        let huge = String(repeating: "x", count: 10 * 1024 * 1024)
        flood.send("{\"command\":\"" + huge + "\"}\n")
        waitUntil("the flood dropped") { server.clientCount == 1 }
        flood.read()
        XCTAssertTrue(flood.received.contains("longer than 65536 bytes"), String(flood.received.prefix(200)))
        XCTAssertTrue(commands.isEmpty, "the huge line is never run")
        bystander.send("{\"command\":\"open\"}\n")
        waitUntil("the bystander's reply") { bystander.read(); return bystander.lines.count == 1 }
        XCTAssertEqual(bystander.lines[0]["ok"] as? Bool, true)
    }

    /// A client that stops reading is dropped once its backlog is full; the
    /// main loop never waits for it and a reading client gets every event.
    func testASilentClientIsDroppedWithoutBlocking() throws {
        let silent = try Client(server.path, receiveBuffer: 4096)
        let reader = try Client(server.path)
        waitUntil("two clients") { server.clientCount == 2 }
        let padding = String(repeating: "p", count: 1000)
        let started = MainContext.monotonicSeconds()
        var sent = 0
        while server.clientCount == 2 && sent < 5000 {
            server.broadcast(["event": "tick", "n": sent, "padding": padding])
            sent += 1
            if sent % 50 == 0 { reader.read(); MainContext.spin(0.001) }
        }
        let elapsed = MainContext.monotonicSeconds() - started
        XCTAssertEqual(server.clientCount, 1, "the silent client is dropped")
        XCTAssertEqual(server.droppedCount, 1)
        XCTAssertLessThan(elapsed, 10, "broadcasting never blocks on a client that does not read")
        waitUntil("the reader has every event") { reader.read(); return reader.lines.count == sent }
        XCTAssertEqual(reader.lines.last?["n"] as? Int, sent - 1)
        withExtendedLifetime(silent) {}
    }

    func testAFileInTheWayIsAnError() throws {
        let path = temporaryDirectory() + "/not-a-socket"
        FileManager.default.createFile(atPath: path, contents: Data("keep me".utf8))
        XCTAssertThrowsError(try ControlServer(path: path)) { error in
            XCTAssertTrue("\(error)".contains("a file that is not a socket is in the way"), "\(error)")
        }
        XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), "keep me")
    }
}
