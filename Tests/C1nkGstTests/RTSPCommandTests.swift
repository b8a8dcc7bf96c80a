import Foundation
import XCTest

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
