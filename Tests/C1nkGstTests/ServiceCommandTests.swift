import Foundation
import Glibc
import XCTest
@testable import C1nkDoor
@testable import C1nkGLib
@testable import C1nkLocal

/// `c1nk-gst-answer` as a service: the control socket, retention and `doctor`,
/// run as a user runs them against a server and a door in this process.
final class ServiceCommandTests: XCTestCase {
    typealias Command = AnswerCommandTests.Command

    static func environment(_ directory: String) -> [String: String] {
        ["XDG_CONFIG_HOME": directory, "C1NK_SYSTEM_CONFIG": "/nonexistent"]
    }

    static let quietMedia = ["--stun", "none", "--ice-local-ip", "127.0.0.1", "--ringtone", "none",
                             "--sink", "fakesink", "--audio-sink", "fakesink", "--audio-source", "audiotestsrc is-live=true"]

    /// Home automation answers, opens the door and hangs up through the socket, and sees the events.
    func testControlSocketDrivesACall() throws {
        Log.echoToStandardError = false
        defer { Log.echoToStandardError = true }
        var doorEvents: [SimulatedDoor.Event] = []
        let (server, door) = try AnswerCommandTests.serverAndDoor { doorEvents.append($0) }
        defer { door.stop() }
        let directory = temporaryDirectory()
        let socketPath = directory + "/control.sock"
        let command = try Command("c1nk-gst-answer", ["--server", server.url, "--device-id-file", directory + "/id",
                                                      "--control", socketPath, "--quiet"] + Self.quietMedia,
                                  environment: Self.environment(directory))
        waitUntil("answerer connected") { door.isReady && server.connectedAppIds.count == 1 }
        var info = stat()
        XCTAssertEqual(stat(socketPath, &info), 0)
        XCTAssertEqual(info.st_mode & 0o777, 0o600, "owner-only")
        let client = try ControlServerTests.Client(socketPath)
        let other = try ControlServerTests.Client(socketPath)
        func events(_ c: ControlServerTests.Client) -> [String] { c.lines.compactMap { $0["event"] as? String } }
        client.send("{\"command\":\"open\"}\n")
        func replies(_ c: ControlServerTests.Client) -> [[String: Any]] { c.lines.filter { $0["ok"] != nil } }
        waitUntil("a refusal without a call") { client.read(); return !replies(client).isEmpty }
        XCTAssertEqual(replies(client).first?["error"] as? String, "no call in progress")
        door.ring()
        waitUntil("ringing at the client") { client.read(); return events(client).contains("ringing") }
        client.send("{\"command\":\"accept\"}\n")
        waitUntil("first frame", timeout: 10) { client.read(); return events(client).contains("first-frame") }
        client.send("{\"command\":\"open\"}\n")
        waitUntil("door opened") { client.read(); return events(client).contains("door-opened") }
        client.send("{\"command\":\"hangup\"}\n")
        waitUntil("ended") { client.read(); return events(client).contains("ended") }
        // A reply follows the events its command caused (they are sent as they happen).
        waitUntil("the hangup's reply") { client.read(); return replies(client).filter { $0["ok"] as? Bool == true }.count == 3 }
        XCTAssertEqual(replies(client).filter { $0["ok"] as? Bool == true }.count, 3, "\(client.received)")
        waitUntil("the other client saw the same events") { other.read(); return events(other).contains("ended") }
        XCTAssertTrue(doorEvents.contains(.callEnded(reason: "hangup")), "\(doorEvents)")
        command.signal(SIGTERM)
        XCTAssertEqual(command.wait(), 0, command.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: socketPath), "the socket is removed at exit")
    }

    /// At start-up: a pattern that could delete other files is refused; old recordings of ours are deleted.
    func testRetentionAtStartUp() throws {
        let directory = temporaryDirectory()
        let refused = try Command("c1nk-gst-answer", ["--server", "ws://127.0.0.1:1/ws", "--pipeline", "record",
                                                      "--record", directory + "/door.mkv", "--keep-days", "7",
                                                      "--device-id-file", directory + "/id"], environment: Self.environment(directory))
        XCTAssertEqual(refused.wait(), 2)
        XCTAssertTrue(refused.stderr.contains("add {callId} or a timestamp to the file name"), refused.stderr)
        let noRecord = try Command("c1nk-gst-answer", ["--keep-gb", "3"], environment: Self.environment(directory))
        XCTAssertEqual(noRecord.wait(), 2)
        XCTAssertTrue(noRecord.stderr.contains("give --record PATH or --snapshot PATH too"), noRecord.stderr)

        let server = try SignalServer()
        let old = directory + "/20260101-100000-call-old.mkv"
        let mine = directory + "/family-video.mkv"
        for path in [old, mine] { FileManager.default.createFile(atPath: path, contents: Data(count: 100)) }
        for path in [old, mine] {
            let touch = try Process.run(URL(fileURLWithPath: "/usr/bin/touch"), arguments: ["-d", "90 days ago", path])
            touch.waitUntilExit()
        }
        let events = directory + "/events.jsonl"
        let command = try Command("c1nk-gst-answer", ["--server", server.url, "--pipeline", "record",
                                                      "--record", directory + "/%Y%m%d-%H%M%S-{callId}.mkv", "--keep-days", "30",
                                                      "--events", events, "--device-id-file", directory + "/id"],
                                  environment: Self.environment(directory))
        waitUntil("the deleted event") { AnswerCommandTests.names(AnswerCommandTests.events(in: events)).contains("deleted") }
        let deleted = AnswerCommandTests.events(in: events).filter { $0["event"] as? String == "deleted" }
        XCTAssertEqual(deleted.compactMap { $0["path"] as? String }, [old])
        XCTAssertEqual(deleted.first?["reason"] as? String, "keep-days")
        XCTAssertFalse(FileManager.default.fileExists(atPath: old))
        XCTAssertTrue(FileManager.default.fileExists(atPath: mine), "a file c1nk did not write stays")
        command.signal(SIGTERM)
        XCTAssertEqual(command.wait(), 0, command.stderr)
    }

    func testDoctorPassesOnAWorkingSetUp() throws {
        let server = try SignalServer()
        let directory = temporaryDirectory()
        let command = try Command("c1nk-gst-answer", ["doctor", "--server", server.url, "--device-id-file", directory + "/id",
                                                      "--record", directory + "/{callId}.mkv", "--min-free-gb", "0"] + Self.quietMedia,
                                  environment: Self.environment(directory))
        XCTAssertEqual(command.wait(timeout: 30), 0, command.stdout + command.stderr)
        let out = command.stdout
        for line in ["✔ element webrtcbin (WebRTC)", "✔ pipeline ", "identity (libgstreamer1.0-0)", "volume (gstreamer1.0-plugins-base)", "✔ video sink 'fakesink' opens", "✔ speaker 'fakesink' opens",
                     "✔ microphone 'audiotestsrc is-live=true' delivers sound", "✔ device id file \(directory)/id will be created",
                     "✔ recording folder \(directory) is writable", "✔ server \(server.url) is reachable", "a call can work on this machine"] {
            XCTAssertTrue(out.contains(line), "doctor says \(line):\n\(out)")
        }
    }

    func testDoctorNamesEachProblemAndItsFix() throws {
        let directory = temporaryDirectory()
        let id = directory + "/id"
        FileManager.default.createFile(atPath: id, contents: Data("6F9619FF-8B86-D011-B42D-00C04FC964FF\n".utf8))
        chmod(id, 0o644)
        let command = try Command("c1nk-gst-answer", ["doctor", "--server", "ws://127.0.0.1:1/ws", "--device-id-file", id,
                                                      "--sink", "fakesink", "--audio-sink", "fakesink", "--audio-source", "audiotestsrc",
                                                      "--stun", "none", "--gst-debug", "c1nk-signal:5"],
                                  environment: Self.environment(directory))
        XCTAssertEqual(command.wait(timeout: 30), 1, command.stdout + command.stderr)
        XCTAssertTrue(command.stderr.contains("connecting to ws://127.0.0.1:1/ws"), "--gst-debug turns on c1nk's debug log: \(command.stderr)")
        let out = command.stdout
        XCTAssertTrue(out.contains("✘ device id file \(id) is readable by others (mode 644)\n    fix: chmod 600 \(id)"), out)
        XCTAssertTrue(out.contains("✘ server ws://127.0.0.1:1/ws is not reachable"), out)
        XCTAssertTrue(out.contains("2 problems to fix before a call can work"), out)
    }

    /// A microphone that opens but never delivers (as `autoaudiosrc` choosing a
    /// source with no device does) is a ✘, not a ✔ for opening.
    func testDoctorCapturesFromTheMicrophone() throws {
        let directory = temporaryDirectory()
        let command = try Command("c1nk-gst-answer", ["doctor", "--server", "ws://127.0.0.1:1/ws", "--device-id-file", directory + "/id",
                                                      "--sink", "fakesink", "--audio-sink", "fakesink", "--audio-source", "appsrc is-live=true",
                                                      "--stun", "none"],
                                  environment: Self.environment(directory))
        XCTAssertEqual(command.wait(timeout: 30), 1, command.stdout + command.stderr)
        XCTAssertTrue(command.stdout.contains("✘ microphone 'appsrc is-live=true' opens but gives no sound: no sound within 3 s"),
                      command.stdout)
    }

    /// wss://: an untrusted certificate is a ✘ with the fix; with --trust-ca it is ✔.
    func testDoctorChecksTheServersCertificate() throws {
        var options = SignalServer.Options()
        let directory = temporaryDirectory()
        let openssl = Process()
        openssl.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        openssl.arguments = ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-keyout", directory + "/key.pem",
                             "-out", directory + "/cert.pem", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"]
        openssl.standardError = FileHandle.nullDevice
        guard (try? openssl.run()) != nil else { throw XCTSkip("openssl is not installed") }
        openssl.waitUntilExit()
        options.tlsCertificate = (directory + "/cert.pem", directory + "/key.pem")
        let server = try SignalServer(options)
        let base = ["doctor", "--server", server.url, "--device-id-file", directory + "/id", "--pipeline", "record",
                    "--record", directory + "/{callId}.mkv", "--min-free-gb", "0", "--stun", "none"]
        let untrusted = try Command("c1nk-gst-answer", base, environment: Self.environment(directory))
        XCTAssertEqual(untrusted.wait(timeout: 30), 1, untrusted.stdout)
        XCTAssertTrue(untrusted.stdout.contains("✘ server \(server.url) is not reachable"), untrusted.stdout)
        XCTAssertTrue(untrusted.stdout.contains("fix: check the clock, the server's certificate, or --trust-ca"), untrusted.stdout)
        let trusted = try Command("c1nk-gst-answer", base + ["--trust-ca", options.tlsCertificate!.certificate], environment: Self.environment(directory))
        XCTAssertEqual(trusted.wait(timeout: 30), 0, trusted.stdout)
        XCTAssertTrue(trusted.stdout.contains("✔ server \(server.url) is reachable and its TLS certificate is valid"), trusted.stdout)
    }

    /// A STUN server that answers is ✔; one that does not is an advisory ✘ (a LAN call still works).
    func testDoctorAsksTheStunServer() throws {
        guard access("/usr/bin/turnserver", X_OK) == 0 else { throw XCTSkip("coturn is not installed") }
        // A UDP port the system chose, handed to coturn.
        let probe = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(probe, $0, length) } }
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(probe, $0, &length) } }
        let port = Int(UInt16(bigEndian: address.sin_port))
        close(probe)
        let directory = temporaryDirectory()
        let stun = Process()
        stun.executableURL = URL(fileURLWithPath: "/usr/bin/turnserver")
        stun.arguments = ["--stun-only", "--listening-ip", "127.0.0.1", "--listening-port", "\(port)", "--no-cli", "--no-tls", "--no-dtls",
                          "--no-stdout-log", "--log-file", directory + "/turn.log", "--pidfile", directory + "/turn.pid", "--userdb", directory + "/turn.db"]
        stun.standardOutput = FileHandle.nullDevice
        stun.standardError = FileHandle.nullDevice
        try stun.run()
        defer { stun.terminate(); stun.waitUntilExit() }
        // coturn is up once its UDP socket is bound (a line of /proc/net/udp: 0100007F:<port in hex>).
        let bound = "0100007F:" + String(format: "%04X", port)
        waitUntil("coturn bound to its port") {
            ((try? String(contentsOfFile: "/proc/net/udp", encoding: .utf8)) ?? "").contains(bound) || !stun.isRunning
        }
        let server = try SignalServer()
        var answered = false
        for _ in 0..<10 where !answered {
            let command = try Command("c1nk-gst-answer", ["doctor", "--server", server.url, "--device-id-file", directory + "/id",
                                                          "--pipeline", "record", "--record", directory + "/{callId}.mkv", "--min-free-gb", "0",
                                                          "--stun", "stun:127.0.0.1:\(port)"], environment: Self.environment(directory))
            XCTAssertEqual(command.wait(timeout: 30), 0, command.stdout)
            answered = command.stdout.contains("✔ STUN stun:127.0.0.1:\(port) answered in")
        }
        XCTAssertTrue(answered, "coturn answered the binding request")
        stun.terminate()
        stun.waitUntilExit()
        let silent = try Command("c1nk-gst-answer", ["doctor", "--server", server.url, "--device-id-file", directory + "/id",
                                                     "--pipeline", "record", "--record", directory + "/{callId}.mkv", "--min-free-gb", "0",
                                                     "--stun", "stun:127.0.0.1:\(port)"], environment: Self.environment(directory))
        XCTAssertEqual(silent.wait(timeout: 30), 0, "STUN is advisory: \(silent.stdout)")
        XCTAssertTrue(silent.stdout.contains("✘ STUN stun:127.0.0.1:\(port) did not answer within 2 s"), silent.stdout)
    }
}
