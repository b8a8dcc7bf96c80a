import Foundation
import Glibc
import XCTest
@testable import C1nkDoor
@testable import C1nkGLib
@testable import C1nkMedia

/// A real coturn on loopback, started by the test with a test user and a
/// port the OS chose, stopped by its PID.
final class TurnServer {
    let port: Int
    let user = "c1nk"
    let password = "door-secret"
    private let process = Process()
    private let log: String
    private let directory: String

    init() throws {
        guard let binary = ["/usr/bin/turnserver", "/usr/sbin/turnserver"].first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw XCTSkip("coturn is not installed (scripts/install-deps installs it)")
        }
        port = try Self.freeUDPPort()
        directory = NSTemporaryDirectory() + "c1nk-turn-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        log = directory + "/turn.log"
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["-n", "--listening-ip", "127.0.0.1", "--relay-ip", "127.0.0.1", "--listening-port", String(port),
                             "--lt-cred-mech", "--user", "\(user):\(password)", "--realm", "c1nk.test",
                             "--allow-loopback-peers", "--no-cli", "--no-tls", "--no-dtls", "--no-software-attribute",
                             "--pidfile", directory + "/turn.pid", "--userdb", directory + "/turndb",
                             "--log-file", log, "--simple-log", "--verbose"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Ready once its relay servers are up (or after 3 s, whichever first).
        _ = MainContext.run(timeout: 3) {
            ((try? String(contentsOfFile: self.log, encoding: .utf8)) ?? "").contains("Total General servers")
        }
    }

    func url(password: String? = nil) -> String { "turn://\(user):\(password ?? self.password)@127.0.0.1:\(port)" }

    /// Lines of the server's log (allocations show as "ALLOCATE").
    var logText: String { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }

    func stop() {
        if process.isRunning {
            kill(process.processIdentifier, SIGTERM)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(atPath: directory)
    }

    deinit { stop() }

    /// A UDP port the OS picks on 127.0.0.1, released for the server to take.
    static func freeUDPPort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        guard fd >= 0 else { throw XCTSkip("no UDP socket") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        guard bound == 0 else { throw XCTSkip("cannot bind a UDP port") }
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

/// Calls through TURN: relay-only works, bad credentials say so and the
/// call falls back to what works.
final class TurnTests: XCTestCase {
    struct Result {
        var frames: Int
        var candidates: [String]
        var warnings: [String]
        var connected: Bool
    }

    /// A call through `ice`, until `done` says what the test needs has come (or 15 s).
    func call(_ ice: IceConfiguration, until done: (Result) -> Bool) throws -> Result {
        var doorOptions = DoorMediaSession.Options()
        doorOptions.ice = .loopback
        let door = try DoorMediaSession(options: doorOptions)
        var configuration = MediaSessionTests.testConfiguration()
        configuration.ice = ice
        var answerer: AnswerSession?
        var result = Result(frames: 0, candidates: [], warnings: [], connected: false)
        door.onOffer = { offer in
            answerer = try? AnswerSession(callId: "turn", offer: offer, configuration: configuration, audioEnabled: false)
            answerer?.onAnswer = { door.applyAnswer($0) }
            answerer?.onLocalCandidate = { result.candidates.append($0.candidate); door.addRemoteCandidate($0) }
            answerer?.onConnected = { result.connected = true }
            answerer?.onWarning = { result.warnings.append($0) }
            answerer?.onFailure = { XCTFail($0) }
        }
        door.onLocalCandidate = { answerer?.addRemoteCandidate($0) }
        defer {
            answerer?.stop()
            door.stop()
        }
        waitUntil("the call's frames", timeout: 15) {
            result.frames = answerer?.framesRendered ?? 0
            return done(result)
        }
        return result
    }

    func testRelayOnlyCallThroughCoturn() throws {
        let turn = try TurnServer()
        defer { turn.stop() }
        var ice = IceConfiguration.loopback
        ice.turnServers = [turn.url()]
        ice.transportPolicy = .relay
        // Thirty frames through the relay: its allocation (and any warning about it) is behind us.
        let result = try call(ice) { $0.frames > 30 }
        XCTAssertTrue(result.connected)
        XCTAssertGreaterThan(result.frames, 30)
        XCTAssertFalse(result.candidates.isEmpty)
        XCTAssertTrue(result.candidates.allSatisfy { $0.contains(" typ relay") }, "only relay candidates: \(result.candidates)")
        XCTAssertTrue(turn.logText.contains("ALLOCATE"), "the relay was allocated on our server: \(turn.logText.suffix(2000))")
        XCTAssertEqual(result.warnings, [])
    }

    func testWrongTurnPasswordSaysSoAndTheCallGoesOnDirectly() throws {
        let turn = try TurnServer()
        defer { turn.stop() }
        var ice = IceConfiguration.loopback
        ice.turnServers = [turn.url(password: "wrong")]
        let result = try call(ice) { $0.frames > 10 && !$0.warnings.isEmpty }
        XCTAssertGreaterThan(result.frames, 10, "the host candidates carry the call")
        let warning = try XCTUnwrap(result.warnings.first, "an error about the TURN server")
        XCTAssertTrue(warning.contains("turn://c1nk@127.0.0.1:\(turn.port)"), warning)
        XCTAssertFalse(warning.contains(":wrong@"), "the password is not repeated: \(warning)")
    }

    func testRelayPolicyWithoutTurnIsAConfigurationError() {
        var configuration = MediaSessionTests.testConfiguration()
        configuration.ice.transportPolicy = .relay
        XCTAssertThrowsError(try configuration.validated()) { error in
            XCTAssertTrue("\(error)".contains("--turn"), "\(error)")
        }
    }
}
