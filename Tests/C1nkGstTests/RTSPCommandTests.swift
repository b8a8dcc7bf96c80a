import Foundation
import XCTest
@testable import C1nkDoor
@testable import C1nkGLib
import C1nkLocal
import C1nkProbes

/// `c1nk-gst-answer`'s RTSP options: what does not go together is a usage error (exit 2) naming what to do.
final class RTSPCommandTests: XCTestCase {
    func testAPortWithoutALoginOrAnonymousIsAUsageError() throws {
        let directory = temporaryDirectory()
        let passwordFile = directory + "/rtsp-password"
        try "secret\n".write(toFile: passwordFile, atomically: true, encoding: .utf8)
        chmod(passwordFile, 0o600)
        for (arguments, message) in [
            (["--rtsp-port", "8554"], "--rtsp-port needs a login: give --rtsp-user NAME and --rtsp-password-file PATH"),
            (["--rtsp-port", "8554", "--rtsp-user", "viewer"], "or --rtsp-anonymous"),
            (["--rtsp-user", "viewer"], "need --rtsp-port N too"),
            (["--rtsp-port", "8554", "--rtsp-anonymous", "--rtsp-user", "viewer", "--rtsp-password-file", passwordFile],
             "--rtsp-anonymous serves without a login"),
            (["--rtsp-port", "http"], "--rtsp-port: http is not a port"),
        ] {
            let command = try AnswerCommandTests.Command("c1nk-gst-answer", ["--server", "ws://127.0.0.1:9/ws"] + arguments)
            XCTAssertEqual(command.wait(), 2, arguments.joined(separator: " "))
            XCTAssertTrue(command.stderr.contains(message), command.stderr)
        }
    }

    func testAPasswordFileOthersCanReadIsRefused() throws {
        let directory = temporaryDirectory()
        let passwordFile = directory + "/rtsp-password"
        try "secret\n".write(toFile: passwordFile, atomically: true, encoding: .utf8)
        chmod(passwordFile, 0o644)
        let command = try AnswerCommandTests.Command("c1nk-gst-answer", [
            "--server", "ws://127.0.0.1:9/ws", "--rtsp-port", "8554", "--rtsp-user", "viewer", "--rtsp-password-file", passwordFile])
        XCTAssertEqual(command.wait(), 2)
        XCTAssertTrue(command.stderr.contains("the RTSP password file \(passwordFile) can be read by others (mode 644); make it owner-only: chmod 600"),
                      command.stderr)
    }

    func testHelpListsTheRTSPOptions() throws {
        let command = try AnswerCommandTests.Command("c1nk-gst-answer", ["--help"])
        XCTAssertEqual(command.wait(), 0)
        for option in ["--rtsp-port N", "--rtsp-user NAME", "--rtsp-password-file PATH", "--rtsp-anonymous"] {
            XCTAssertTrue(command.stdout.contains(option), option)
        }
    }
}

extension RTSPCommandTests {
    /// The command end to end: its restream serves the call with the login from the file, and the door's voice
    /// once the call is accepted (by standard input's `a`, the speaker's rule).
    func testTheCommandServesTheCallWithTheLogin() throws {
        Log.echoToStandardError = false
        defer { Log.echoToStandardError = true }
        let (server, door) = try AnswerCommandTests.serverAndDoor { _ in }
        defer { door.stop(); server.stop() }
        let directory = temporaryDirectory()
        let passwordFile = directory + "/rtsp-password"
        try "door pw\n".write(toFile: passwordFile, atomically: true, encoding: .utf8)
        chmod(passwordFile, 0o600)
        let port = 20_000 + Int.random(in: 0..<20_000)
        let events = directory + "/events.jsonl"
        let command = try AnswerCommandTests.Command("c1nk-gst-answer", [
            "--server", server.url, "--events", events, "--device-id-file", directory + "/id",
            "--answer", "auto", "--stun", "none", "--ice-local-ip", "127.0.0.1", "--hangup-after", "20",
            "--sink", "fakesink", "--audio-sink", "fakesink", "--audio-source", "audiotestsrc is-live=true", "--ringtone", "none",
            "--rtsp-port", String(port), "--rtsp-user", "viewer", "--rtsp-password-file", passwordFile])
        defer { command.signal(SIGTERM); _ = command.wait() }
        waitUntil("answerer connected") { door.isReady && server.connectedAppIds.count == 1 }
        door.ring()
        waitUntil("first frame", timeout: 10) { AnswerCommandTests.names(AnswerCommandTests.events(in: events)).contains("first-frame") }
        let client = try RTSPClient(url: "rtsp://viewer:door%20pw@127.0.0.1:\(port)/door")
        waitUntil("frames from the command's restream", timeout: 8) { client.frames.value.load(ordering: .relaxed) >= 15 }
        waitUntil("the door's voice (accepted at once)", timeout: 5) { client.audioPeak > 3000 }
        let refused = try RTSPClient(url: "rtsp://127.0.0.1:\(port)/door")
        var error: String?
        waitUntil("refused without the login", timeout: 8) { error = refused.error(); return error != nil }
        XCTAssertTrue(error?.contains("401") == true, error ?? "")
    }
}
