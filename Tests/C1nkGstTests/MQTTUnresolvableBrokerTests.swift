import Foundation
import Glibc
import XCTest
@testable import C1nkDoor
@testable import C1nkGLib
@testable import C1nkLocal

/// `c1nk-gst-answer --mqtt mqtt://nonexistent.invalid` behind a name server
/// that never answers (each lookup waits out the resolver's timeout, 15 s):
/// a real call from the simulated door is answered while the name is being
/// looked up, and only then does the lookup fail, with a clear error and a retry.
/// The command runs in a mount namespace of its own whose /etc/resolv.conf
/// names that silent server (root only).
final class MQTTUnresolvableBrokerTests: XCTestCase {
    func testAnAnswererKeepsAnsweringACallWhileTheBrokersNameIsLookedUpAndRetried() throws {
        guard getuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare") else {
            throw XCTSkip("needs root and unshare for a resolv.conf of its own")
        }
        Log.echoToStandardError = false
        defer { Log.echoToStandardError = true }
        // A name server that takes every query and answers none.
        let silent = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        defer { close(silent) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.77")
        address.sin_port = UInt16(53).bigEndian
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(silent, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else { throw XCTSkip("cannot listen on 127.0.0.77:53 (\(String(cString: strerror(errno))))") }
        let directory = temporaryDirectory()
        try "nameserver 127.0.0.77\noptions timeout:15 attempts:1\n".write(toFile: directory + "/resolv.conf", atomically: true, encoding: .utf8)

        var doorEvents: [SimulatedDoor.Event] = []
        let (server, door) = try AnswerCommandTests.serverAndDoor { doorEvents.append($0) }
        defer { door.stop(); server.stop() }
        let events = directory + "/events.jsonl"
        let answer = AnswerCommandTests.binaries.appendingPathComponent("c1nk-gst-answer").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
        process.arguments = ["--mount", "/bin/sh", "-c", #"mount --bind "$0" /etc/resolv.conf && exec "$@""#, directory + "/resolv.conf",
                             answer, "--server", server.url, "--device-id-file", directory + "/id", "--events", events,
                             "--answer", "auto", "--stun", "none", "--ice-local-ip", "127.0.0.1", "--sink", "fakesink",
                             "--audio-sink", "fakesink", "--audio-source", "audiotestsrc is-live=true", "--ringtone", "none",
                             "--mqtt", "mqtt://nonexistent.invalid:1883"]
        process.environment = ProcessInfo.processInfo.environment.merging(
            ["C1NK_SYSTEM_CONFIG": "/nonexistent/answer.conf", "XDG_CONFIG_HOME": directory]) { $1 }
        let stderrPath = directory + "/stderr"
        FileManager.default.createFile(atPath: stderrPath, contents: nil)
        process.standardError = FileHandle(forWritingAtPath: stderrPath)
        process.standardOutput = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // unshare and sh exec: this is the answerer's own process id.
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL); process.waitUntilExit() } }
        func names() -> [String] { AnswerCommandTests.names(AnswerCommandTests.events(in: events)) }
        func lookupErrors() -> [String] {
            AnswerCommandTests.events(in: events).compactMap { $0["event"] as? String == "error" ? $0["message"] as? String : nil }
                .filter { $0.hasPrefix("MQTT broker mqtt://nonexistent.invalid:1883") }
        }

        waitUntil("registered", timeout: 30) { names().contains("registered") || !process.isRunning }
        XCTAssertTrue(process.isRunning, (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "")
        door.ring()
        waitUntil("the call answered and its media connected", timeout: 30) { names().contains("media-connected") }
        XCTAssertEqual(lookupErrors(), [], "the call went through while the first lookup was still waiting for its answer (not after it)")
        let connected = AnswerCommandTests.events(in: events).first { $0["event"] as? String == "media-connected" }
        print("mqtt: ring → media connected while the broker's name is being looked up: \(connected?["sinceRingMs"] ?? "?") ms")

        waitUntil("the lookup's failure, said clearly", timeout: 40) { !lookupErrors().isEmpty }
        let message = try XCTUnwrap(lookupErrors().first)
        XCTAssertTrue(message.hasPrefix("MQTT broker mqtt://nonexistent.invalid:1883: cannot resolve nonexistent.invalid ("), message)
        XCTAssertTrue(message.hasSuffix("retrying in 1 s (calls go on)"), message)
        XCTAssertTrue(names().contains("accepted"), names().description)
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "")
    }
}
