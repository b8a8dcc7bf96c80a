import Foundation
import Glibc
import XCTest
@testable import C1nkGLib
@testable import C1nkLocal
@testable import C1nkWeb

/// `--web-address` and `--rtsp-address`: the page (and the restream) on one
/// address of the machine only, and what is refused, with the command as a user runs it.
final class WebAddressTests: XCTestCase {
    func testTheWebPageOnOneAddressIsNotReachableOnAnother() throws {
        Log.echoToStandardError = false
        defer { Log.echoToStandardError = true }
        let server = try SignalServer()
        defer { server.stop() }
        let answerer = try WebCommandTests.startAnswerer(server: server, extra: ["--web-address", "127.0.0.1"])
        defer { answerer.command.signal(SIGTERM); _ = answerer.command.wait() }
        XCTAssertTrue(WebCommandTests.accepts("127.0.0.1", port: answerer.port), answerer.command.stderr)
        XCTAssertFalse(WebCommandTests.accepts("127.0.0.2", port: answerer.port), "127.0.0.1 only: " + answerer.command.stderr)
        var browser = WebClient(port: answerer.port)
        XCTAssertEqual(browser.login(WebCommandTests.password).status, 200)
    }

    func testAddressesThatCannotBeServedAreRefused() throws {
        func run(_ arguments: [String]) throws -> (status: Int32?, err: String) {
            let directory = temporaryDirectory()
            let command = try AnswerCommandTests.Command("c1nk-gst-answer", ["--server", "ws://127.0.0.1:9/ws", "--device-id-file", directory + "/id"]
                                                         + arguments, environment: ["XDG_STATE_HOME": directory])
            return (command.wait(), command.stderr)
        }
        let name = try run(["--web-port", "8443", "--web-address", "doorbell.lan"])
        XCTAssertEqual(name.status, 2, name.err)
        XCTAssertTrue(name.err.contains("--web-address takes an IP address"), name.err)
        let lonely = try run(["--web-address", "127.0.0.1"])
        XCTAssertEqual(lonely.status, 2, lonely.err)
        XCTAssertTrue(lonely.err.contains("need --web-port"), lonely.err)
        let plain = try run(["--web-port", "8443", "--web-address", "127.0.0.1", "--web-plain-http"])
        XCTAssertEqual(plain.status, 2, plain.err)
        XCTAssertTrue(plain.err.contains("drop --web-address"), plain.err)
        let rtspName = try run(["--rtsp-port", "8554", "--rtsp-anonymous", "--rtsp-address", "camera"])
        XCTAssertEqual(rtspName.status, 2, rtspName.err)
        XCTAssertTrue(rtspName.err.contains("--rtsp-address takes an IP address"), rtspName.err)
        let rtspLonely = try run(["--rtsp-address", "127.0.0.1"])
        XCTAssertEqual(rtspLonely.status, 2, rtspLonely.err)
        XCTAssertTrue(rtspLonely.err.contains("--rtsp-address needs --rtsp-port"), rtspLonely.err)
        // An address that is not this machine's: the bind fails, said so.
        let notOurs = try run(["--rtsp-port", String(WebClient.freePort()), "--rtsp-anonymous", "--rtsp-address", "192.0.2.1"])
        XCTAssertEqual(notOurs.status, 1, notOurs.err)
        XCTAssertTrue(notOurs.err.contains("cannot serve RTSP on 192.0.2.1"), notOurs.err)
    }

    func testTheRestreamOnOneAddressIsNotReachableOnAnother() throws {
        let directory = temporaryDirectory()
        let port = WebClient.freePort()
        let command = try AnswerCommandTests.Command("c1nk-gst-answer", [
            "--server", "ws://127.0.0.1:9/ws", "--device-id-file", directory + "/id", "--sink", "fakesink", "--audio-sink", "fakesink",
            "--ringtone", "none", "--rtsp-port", String(port), "--rtsp-anonymous", "--rtsp-address", "127.0.0.1"],
            environment: ["XDG_STATE_HOME": directory])
        defer { command.signal(SIGTERM); _ = command.wait() }
        waitUntil("the restream listens", timeout: 15) { WebCommandTests.accepts("127.0.0.1", port: port) || !command.process.isRunning }
        XCTAssertTrue(command.process.isRunning, command.stderr)
        XCTAssertFalse(WebCommandTests.accepts("127.0.0.2", port: port), "127.0.0.1 only: " + command.stderr)
    }
}
