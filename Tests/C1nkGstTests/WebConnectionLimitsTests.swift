import Foundation
import Glibc
import XCTest
@testable import C1nkGLib
@testable import C1nkWeb

/// The server against clients that hold connections (slowloris): one that
/// says nothing, one that sends its header a byte at a time, one idle after
/// a request, and more connections than the caps, from loopback addresses
/// of their own. Short deadlines here; the server's are 10 s and 30 s.
final class WebConnectionLimitsTests: XCTestCase {
    override func setUp() { Log.echoToStandardError = false }
    override func tearDown() { Log.echoToStandardError = true }

    static let quick = HTTPConnectionTable.Limits(maximum: 64, perAddress: 16, headerTimeout: 1.5, idleTimeout: 3)

    /// Whether the server closed `fd` (end of stream or reset), without waiting.
    static func isClosed(_ fd: Int32) -> Bool {
        var byte: UInt8 = 0
        let count = recv(fd, &byte, 1, Int32(MSG_DONTWAIT | MSG_PEEK))
        return count == 0 || (count < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
    }

    /// Seconds until the server closes `fd`, or nil within `timeout`.
    static func secondsUntilClosed(_ fd: Int32, timeout: Double = 12) -> Double? {
        let started = MainContext.monotonicSeconds()
        guard MainContext.run(timeout: timeout, until: { isClosed(fd) }) else { return nil }
        return MainContext.monotonicSeconds() - started
    }

    func testASilentClientIsClosedAfterTheHandshakeDeadline() throws {
        let secure = try WebTestServer.make { $0.connections = Self.quick }
        defer { secure.stop() }
        let fd = RawHTTP.connect(port: secure.port)
        defer { close(fd) }
        let seconds = try XCTUnwrap(Self.secondsUntilClosed(fd), "a client that never starts its TLS handshake is closed")
        XCTAssertGreaterThanOrEqual(seconds, 1.4, "not before its deadline")
        XCTAssertEqual(secure.connections.timedOut, 1)
        var browser = WebClient(port: secure.port)
        XCTAssertEqual(browser.login(WebTestServer.password).status, 200, "a real client is served")
    }

    func testAHeaderAByteAtATimeAndAnIdleKeepAliveAreClosed() throws {
        let server = try WebTestServer.make(plainHTTP: true) { $0.connections = Self.quick }
        defer { server.stop() }
        // A header a byte every 0.3 s: 40 bytes would take 12 s.
        let slow = RawHTTP.connect(port: server.port)
        defer { close(slow) }
        let header = Array("GET /index.html HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8)
        var sent = 0
        let drip = GLibTimer(after: 0.3, repeats: true) {
            guard sent < header.count else { return }
            _ = send(slow, [header[sent]], 1, Int32(MSG_NOSIGNAL))
            sent += 1
        }
        let slowSeconds = try XCTUnwrap(Self.secondsUntilClosed(slow), "a header sent a byte at a time is closed")
        drip.cancel()
        XCTAssertLessThan(sent, header.count, "before its header was complete")
        XCTAssertGreaterThanOrEqual(slowSeconds, 1.4)
        // A keep-alive connection after its answer: closed once idle 3 s.
        let idle = RawHTTP.connect(port: server.port)
        defer { close(idle) }
        let request = Array("GET /index.html HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8)
        XCTAssertEqual(send(idle, request, request.count, Int32(MSG_NOSIGNAL)), request.count)
        var reply = [UInt8](repeating: 0, count: 8192)
        XCTAssertTrue(MainContext.run(timeout: 10) { recv(idle, &reply, reply.count, Int32(MSG_DONTWAIT)) > 0 }, "answered")
        let idleSeconds = try XCTUnwrap(Self.secondsUntilClosed(idle), "an idle keep-alive connection is closed")
        XCTAssertGreaterThanOrEqual(idleSeconds, 2.8, "after the idle time, not the header time")
        XCTAssertEqual(server.connections.timedOut, 2)
    }

    func testConnectionsBeyondTheCapsAreRefusedAtOnce() throws {
        let limits = HTTPConnectionTable.Limits(maximum: 5, perAddress: 3, headerTimeout: 60, idleTimeout: 60)
        let server = try WebTestServer.make { $0.connections = limits }
        defer { server.stop() }
        func open(_ from: String) -> Int32 {
            let fd = RawHTTP.connect(port: server.port, from: from)
            XCTAssertGreaterThanOrEqual(fd, 0)
            return fd
        }
        var first = (0..<3).map { _ in open("127.0.0.2") }
        XCTAssertTrue(MainContext.run(timeout: 10) { server.connections.open == 3 })
        let fourth = open("127.0.0.2")
        defer { close(fourth) }
        XCTAssertNotNil(Self.secondsUntilClosed(fourth, timeout: 5), "a fourth from one address is closed at once")
        let others = (0..<2).map { _ in open("127.0.0.3") }
        defer { others.forEach { close($0) } }
        XCTAssertTrue(MainContext.run(timeout: 10) { server.connections.open == 5 })
        let sixth = open("127.0.0.4")
        defer { close(sixth) }
        XCTAssertNotNil(Self.secondsUntilClosed(sixth, timeout: 5), "a sixth in all is closed at once")
        XCTAssertEqual(server.connections.refused, 2)
        XCTAssertTrue(first.allSatisfy { !Self.isClosed($0) }, "the ones taken stay open")
        close(first.removeFirst())
        XCTAssertTrue(MainContext.run(timeout: 10) { server.connections.open == 4 }, "a closed connection leaves the count")
        first.forEach { close($0) }
        XCTAssertTrue(MainContext.run(timeout: 10) { server.connections.open == 2 })
        var browser = WebClient(port: server.port, from: "127.0.0.2")
        XCTAssertEqual(browser.login(WebTestServer.password).status, 200, "room again")
    }

    /// libsoup keeps the socket of a keep-alive connection its peer closed:
    /// those leave the count, so one browser's many short requests never fill its share.
    func testClosedKeepAliveConnectionsLeaveTheCount() throws {
        let limits = HTTPConnectionTable.Limits(maximum: 8, perAddress: 3, headerTimeout: 60, idleTimeout: 60)
        for plain in [false, true] {
            let server = try WebTestServer.make(plainHTTP: plain) { $0.connections = limits }
            defer { server.stop() }
            let browser = WebClient(port: server.port, scheme: plain ? "http" : "https")
            for index in 0..<12 { XCTAssertEqual(browser.request("GET", "/index.html").status, 200, "request \(index), plain \(plain)") }
            XCTAssertEqual(server.connections.refused, 0)
            XCTAssertTrue(MainContext.run(timeout: 5) { server.connections.open == 0 }, "\(server.connections)")
        }
    }
}
