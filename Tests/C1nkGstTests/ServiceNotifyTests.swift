import Foundation
import Glibc
import XCTest
@testable import C1nkLocal
@testable import C1nkService

/// systemd's notify protocol, tested with a socket of our own standing in for
/// systemd, and the units checked with `systemd-analyze verify`.
final class ServiceNotifyTests: XCTestCase {
    /// A datagram socket like systemd's `$NOTIFY_SOCKET`.
    final class NotifySocket {
        let path: String
        let fd: Int32
        private(set) var messages: [String] = []

        init() {
            path = temporaryDirectory() + "/notify"
            fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { raw in for (i, b) in path.utf8.enumerated() { raw[i] = b } }
            _ = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
        }

        deinit { close(fd); unlink(path) }

        func poll() -> [String] {
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                guard count > 0 else { break }
                messages.append(String(decoding: buffer[0..<count], as: UTF8.self))
            }
            return messages
        }
    }

    func testReadyOnceRegisteredAndWatchdogKeepAlives() throws {
        let notify = NotifySocket()
        let server = try SignalServer()
        let directory = temporaryDirectory()
        let events = directory + "/events.jsonl"
        let command = try AnswerCommandTests.Command("c1nk-gst-answer", [
            "--server", server.url, "--events", events, "--device-id-file", directory + "/id",
            "--sink", "fakesink", "--audio-sink", "fakesink", "--audio-source", "audiotestsrc"],
            environment: ["NOTIFY_SOCKET": notify.path, "WATCHDOG_USEC": "400000", "XDG_CONFIG_HOME": directory,
                          "C1NK_SYSTEM_CONFIG": "/nonexistent"])
        waitUntil("READY=1") { notify.poll().contains { $0.hasPrefix("READY=1") } }
        XCTAssertTrue(AnswerCommandTests.names(AnswerCommandTests.events(in: events)).contains("registered"),
                      "READY=1 comes once registered with the server")
        let ready = try XCTUnwrap(notify.messages.first { $0.hasPrefix("READY=1") })
        XCTAssertTrue(ready.contains("STATUS=hello-ok: registered as device"), ready)
        let before = notify.messages.filter { $0 == "WATCHDOG=1" }.count
        waitUntil("two more keep-alives from the main loop") { notify.poll().filter { $0 == "WATCHDOG=1" }.count >= before + 2 }
        command.signal(SIGTERM)
        XCTAssertEqual(command.wait(), 0, command.stderr)
        XCTAssertEqual(notify.poll().filter { $0.hasPrefix("READY=1") }.count, 1, "READY=1 is sent once")
        XCTAssertTrue(notify.messages.contains("STOPPING=1"), "\(notify.messages)")
    }

    /// The abstract-namespace form (`@name`) systemd may use.
    func testAbstractSocketAddress() throws {
        let name = "c1nk-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in for (i, b) in name.utf8.enumerated() { raw[i + 1] = b } }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sa_family_t>.size + 1 + name.utf8.count)) }
        }
        XCTAssertEqual(bound, 0)
        let notifier = ServiceNotifier(environment: ["NOTIFY_SOCKET": "@" + name, "WATCHDOG_USEC": "2000000"])
        XCTAssertEqual(notifier.watchdogInterval, 1)
        notifier.ready(status: "ok")
        notifier.ready(status: "again")
        var buffer = [UInt8](repeating: 0, count: 256)
        let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        XCTAssertEqual(count > 0 ? String(decoding: buffer[0..<count], as: UTF8.self) : "", "READY=1\nSTATUS=ok")
        XCTAssertLessThan(buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }, 0, "READY=1 only once")
        XCTAssertNil(ServiceNotifier(environment: [:]).watchdogInterval, "nothing without systemd")
    }

    /// The shipped units pass `systemd-analyze verify`, with the paths install uses.
    func testSystemdUnitsVerify() throws {
        let candidates: [String] = ["/usr/bin/systemd-analyze", "/bin/systemd-analyze"]
        let analyze = candidates.first { access($0, X_OK) == 0 }
        guard let analyze else { throw XCTSkip("systemd-analyze is not installed") }
        let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let units = source.appendingPathComponent("systemd").path
        let directory = temporaryDirectory()
        // The units name /usr/local/bin/c1nk-gst-answer: verify against a copy whose ExecStart points at the built binary.
        var names: [String] = []
        let folders: [(String, String)] = [("", ""), ("/user", "-user")]
        for (folder, suffix) in folders {
            for name in try FileManager.default.contentsOfDirectory(atPath: units + folder) where name.hasSuffix(".service") {
                let text = try String(contentsOfFile: units + folder + "/" + name, encoding: .utf8)
                    .replacingOccurrences(of: "@BINDIR@", with: AnswerCommandTests.binaries.path)
                let copy = directory + "/" + name.replacingOccurrences(of: ".service", with: suffix + ".service")
                FileManager.default.createFile(atPath: copy, contents: Data(text.utf8))
                names.append(copy)
            }
        }
        XCTAssertEqual(names.count, 3, "the kiosk, user and recorder units")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: analyze)
        process.arguments = ["verify", "--man=no"] + names.sorted()
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        // Without systemd as PID 1 some checks cannot run; those lines are not about our units.
        let ours = text.split(separator: "\n").filter { line in names.contains { line.contains(($0 as NSString).lastPathComponent) } }
        XCTAssertTrue(ours.isEmpty, ours.joined(separator: "\n"))
        XCTAssertEqual(process.terminationStatus, 0, text)
    }
}
