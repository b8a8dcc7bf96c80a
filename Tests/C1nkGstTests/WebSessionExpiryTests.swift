import Foundation
import XCTest
@testable import C1nkGLib
@testable import C1nkWeb

/// A session's end ends its event streams and tells who watched (its
/// viewers end): unused too long, or pushed out by newer sessions.
final class WebSessionExpiryTests: XCTestCase {
    override func setUp() { Log.echoToStandardError = false }
    override func tearDown() { Log.echoToStandardError = true }

    func testAnExpiredSessionsEventStreamIsClosedAndItsViewersEnd() throws {
        let server = try WebTestServer.make(sessions: WebSessions(idle: 2, lifetime: 3600))
        defer { server.stop() }
        var gone: [String] = []
        server.api.clientGone = { gone.append($0) }
        var browser = WebClient(port: server.port)
        XCTAssertEqual(browser.login(WebTestServer.password).status, 200)
        let output = temporaryDirectory() + "/events"
        let stream = try browser.events(into: output)
        defer { if stream.isRunning { stream.terminate() } }
        XCTAssertTrue(MainContext.run(timeout: 10) { server.streamCount == 1 })
        let opened = MainContext.monotonicSeconds()
        XCTAssertTrue(MainContext.run(timeout: 15) { !stream.isRunning }, "the stream is closed when its session expires")
        let seconds = MainContext.monotonicSeconds() - opened
        XCTAssertGreaterThanOrEqual(seconds, 1.5, "not before the session's end")
        XCTAssertTrue(MainContext.run(timeout: 5) { server.streamCount == 0 }, "the server let it go")
        XCTAssertTrue(gone.contains { $0.hasPrefix("session:") }, "its viewers are told to end: \(gone)")
        XCTAssertTrue(((try? String(contentsOfFile: output, encoding: .utf8)) ?? "").contains("event: state"))
        XCTAssertEqual(browser.request("GET", "/api/state").status, 401, "the session is over")
    }

    func testASessionPushedOutByNewerOnesLosesItsStream() throws {
        let server = try WebTestServer.make(sessions: WebSessions(limit: 2))
        defer { server.stop() }
        var first = WebClient(port: server.port, from: "127.0.0.2")
        XCTAssertEqual(first.login(WebTestServer.password).status, 200)
        let stream = try first.events(into: temporaryDirectory() + "/events")
        defer { if stream.isRunning { stream.terminate() } }
        XCTAssertTrue(MainContext.run(timeout: 10) { server.streamCount == 1 })
        for n in 3...4 {
            var other = WebClient(port: server.port, from: "127.0.0.\(n)")
            XCTAssertEqual(other.login(WebTestServer.password).status, 200)
        }
        XCTAssertTrue(MainContext.run(timeout: 10) { !stream.isRunning }, "the least recently used session went, and its stream with it")
    }
}
