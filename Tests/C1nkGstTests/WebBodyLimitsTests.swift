import Foundation
import Glibc
import XCTest
@testable import C1nkGLib
@testable import C1nkWeb

/// Every route's body cap over real HTTPS (curl): a Content-Length above it
/// refused unread, a chunked body as it passes it, a route without a body
/// refusing one; the server answering on after each.
final class WebBodyLimitsTests: XCTestCase {
    override func setUp() { Log.echoToStandardError = false }
    override func tearDown() { Log.echoToStandardError = true }

    func testOversizedBodiesGet413OnEveryRoute() throws {
        let server = try WebTestServer.make()
        defer { server.stop() }
        var browser = WebClient(port: server.port)
        XCTAssertEqual(browser.login(WebTestServer.password).status, 200)
        let directory = temporaryDirectory()
        func file(_ name: String, _ bytes: Int) throws -> String {
            let path = directory + "/" + name
            try Data(repeating: UInt8(ascii: "a"), count: bytes).write(to: URL(fileURLWithPath: path))
            return path
        }
        let big = try file("big", 10 * 1024 * 1024), five = try file("five", 5 * 1024), hundred = try file("hundred", 100 * 1024)
        let json = ["Content-Type: application/json"]
        XCTAssertEqual(browser.request("POST", "/api/command", bodyFile: big, headers: json).status, 413, "10 MB")
        XCTAssertEqual(browser.request("POST", "/api/login", bodyFile: five, headers: json).status, 413, "5 KiB for a password")
        XCTAssertEqual(browser.request("POST", "/api/whep", bodyFile: hundred, headers: ["Content-Type: application/sdp"]).status, 413)
        XCTAssertEqual(browser.request("GET", "/api/state", bodyFile: five).status, 413, "a route that takes no body")
        XCTAssertEqual(browser.request("POST", "/api/command", bodyFile: hundred, headers: json + ["Transfer-Encoding: chunked"]).status, 413,
                       "a chunked body past the cap")
        let small = directory + "/small"
        try Data("not json".utf8).write(to: URL(fileURLWithPath: small))
        XCTAssertEqual(browser.request("POST", "/api/command", bodyFile: small, headers: json + ["Transfer-Encoding: chunked"]).status, 400,
                       "a chunked body under the cap is read (and refused as not JSON)")
        // A chunked body that goes on far past the cap: its connection is cut, the server goes on.
        let started = MainContext.monotonicSeconds()
        let cut = browser.request("POST", "/api/command", bodyFile: big, headers: json + ["Transfer-Encoding: chunked"])
        XCTAssertTrue([0, 100, 413].contains(cut.status), "cut after 100 Continue, or refused: \(cut.status)")
        XCTAssertLessThan(MainContext.monotonicSeconds() - started, 8, "cut, not left to time out")
        XCTAssertGreaterThanOrEqual(server.refusedBodies, 6)
        XCTAssertEqual(browser.request("GET", "/api/state").status, 200, "the server answers on")
    }
}
