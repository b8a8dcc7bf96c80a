import Foundation
import XCTest
@testable import C1nkDoor
@testable import C1nkGLib
@testable import C1nkLocal
@testable import C1nkSignaling

/// The built `c1nk-gst-answer` (and friends) run as a user runs them.
final class AnswerCommandTests: XCTestCase {
    static let binaries = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()

    /// A started command; its output goes to files so that nothing blocks.
    final class Command {
        let process = Process()
        let directory: String
        var stdoutPath: String { directory + "/stdout" }
        let stderrPath: String

        /// `stderrPath`: an existing file to append standard error to (its inode stays).
        init(_ name: String, _ arguments: [String], environment: [String: String] = [:], stderrPath: String? = nil) throws {
            let directory = temporaryDirectory()
            self.directory = directory
            self.stderrPath = stderrPath ?? directory + "/stderr"
            let binary = AnswerCommandTests.binaries.appendingPathComponent(name)
            guard FileManager.default.fileExists(atPath: binary.path) else {
                throw XCTSkip("\(binary.path) is not built")
            }
            process.executableURL = binary
            process.arguments = arguments
            // No config file of this machine or user changes what a test runs.
            let hermetic = ["C1NK_SYSTEM_CONFIG": "/nonexistent/answer.conf", "XDG_CONFIG_HOME": directory]
            process.environment = ProcessInfo.processInfo.environment.merging(hermetic) { $1 }.merging(environment) { $1 }
            FileManager.default.createFile(atPath: stdoutPath, contents: nil)
            if stderrPath == nil { FileManager.default.createFile(atPath: self.stderrPath, contents: nil) }
            process.standardOutput = FileHandle(forWritingAtPath: stdoutPath)
            process.standardError = FileHandle(forWritingAtPath: self.stderrPath)
            process.standardInput = FileHandle.nullDevice
            try process.run()
        }

        var stdout: String { (try? String(contentsOfFile: stdoutPath, encoding: .utf8)) ?? "" }
        var stderr: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }

        /// Waits (iterating the main context, where in-process servers live) for the exit status.
        func wait(timeout: Double = 20) -> Int32? {
            guard MainContext.run(timeout: timeout, until: { !process.isRunning }) else {
                process.terminate()
                return nil
            }
            return process.terminationStatus
        }

        func signal(_ number: Int32) { kill(process.processIdentifier, number) }

        /// The files the running process maps (/proc/PID/maps).
        var maps: String {
            // A /proc file says it is empty: read it to its end.
            let handle = FileHandle(forReadingAtPath: "/proc/\(process.processIdentifier)/maps")
            defer { try? handle?.close() }
            return String(decoding: (try? handle?.readToEnd()) ?? Data(), as: UTF8.self)
        }
    }

    func run(_ arguments: [String], timeout: Double = 20, environment: [String: String] = [:]) throws -> (status: Int32?, out: String, err: String) {
        let command = try Command("c1nk-gst-answer", arguments, environment: environment)
        let status = command.wait(timeout: timeout)
        return (status, command.stdout, command.stderr)
    }

    static func events(in path: String) -> [[String: Any]] {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    static func names(_ events: [[String: Any]]) -> [String] { events.compactMap { $0["event"] as? String } }

    func testHelpListsTheContractOptions() throws {
        let result = try run(["--help"])
        XCTAssertEqual(result.status, 0)
        for option in ["--server", "--sink", "--audio-source", "--audio-sink", "--answer", "--answer-delay",
                       "--open-door-after", "--hangup-after", "--exit-after-calls", "--events", "--device-id-file",
                       "--stun", "--turn", "--ice-local-ip", "--latency", "--demo"] {
            XCTAssertTrue(result.out.contains(option), "--help mentions \(option)")
        }
    }

    func testBadUsageExitsTwoAndSaysWhatToFix() throws {
        let cases: [([String], String)] = [
            (["--bogus"], "unknown option --bogus"),
            (["--answer", "sometimes"], "--answer takes one of auto, manual"),
            (["--server", "http://example.org"], "ws:// or wss://"),
            (["--latency", "fast"], "--latency takes a whole number"),
            (["--ice-local-ip", "localhost"], "IP address"),
            (["--stun", "none", "--stun", "stun:a:1"], "--stun none cannot be combined"),
            (["--server"], "--server needs a value"),
            (["--sink", "nosuchvideosink", "--server", "ws://127.0.0.1:1/ws"], "nosuchvideosink"),
            (["--audio-source", "audiotestsrc ! ! fakesink", "--server", "ws://127.0.0.1:1/ws"], "element '{audio-source}': syntax error"),
        ]
        for (arguments, message) in cases {
            let result = try run(arguments)
            XCTAssertEqual(result.status, 2, "\(arguments)")
            XCTAssertTrue(result.err.contains(message), "\(arguments): \(result.err)")
        }
    }

    func testConnectsRegistersAndStopsOnSIGTERM() throws {
        let server = try SignalServer()
        let directory = temporaryDirectory()
        let command = try Command("c1nk-gst-answer", ["--server", server.url, "--events", directory + "/events.jsonl",
                                                      "--device-id-file", directory + "/id"])
        waitUntil("hello-ok") { Self.names(Self.events(in: directory + "/events.jsonl")).contains("registered") }
        let id = try DeviceIdentity.loadOrCreate(at: directory + "/id") { _ in }.id
        XCTAssertEqual(server.connectedAppIds, [id])
        waitUntil("the status line") { command.stderr.contains("hello-ok: registered as device \(server.connectedAppIds.first ?? "?")") }
        command.signal(SIGTERM)
        XCTAssertEqual(command.wait(), 0)
        let first = try XCTUnwrap(Self.events(in: directory + "/events.jsonl").first)
        XCTAssertEqual(first["event"] as? String, "connected")
        XCTAssertNotNil(first["t"] as? Int, "t in unix ms")
    }

    /// A local server and a started simulated door on loopback (`configure` sets its
    /// options); `record` gets the door's events.
    static func serverAndDoor(configure: (inout SimulatedDoor.Options) -> Void = { _ in },
                              record: @escaping (SimulatedDoor.Event) -> Void) throws -> (SignalServer, SimulatedDoor) {
        let server = try SignalServer()
        var doorOptions = SimulatedDoor.Options(serverURL: server.url)
        doorOptions.media.ice = .loopback
        configure(&doorOptions)
        let door = try SimulatedDoor(doorOptions)
        door.onEvent = record
        door.start()
        return (server, door)
    }

    func testSIGINTMidCallHangsUpAndExitsCleanly() throws {
        Log.echoToStandardError = false
        defer { Log.echoToStandardError = true }
        var doorEvents: [SimulatedDoor.Event] = []
        let (server, door) = try AnswerCommandTests.serverAndDoor { doorEvents.append($0) }
        let directory = temporaryDirectory()
        let events = directory + "/events.jsonl"
        let command = try Command("c1nk-gst-answer", [
            "--server", server.url, "--events", events, "--device-id-file", directory + "/id",
            "--answer", "auto", "--stun", "none", "--ice-local-ip", "127.0.0.1",
            "--sink", "fakesink", "--audio-sink", "fakesink", "--audio-source", "audiotestsrc is-live=true", "--ringtone", "none"])
        waitUntil("answerer connected") { door.isReady && server.connectedAppIds.count == 1 }
        door.ring()
        waitUntil("first frame", timeout: 10) { Self.names(Self.events(in: events)).contains("first-frame") }
        command.signal(SIGINT)
        XCTAssertEqual(command.wait(), 0, command.stderr)
        waitUntil("the door to hear the hangup") { doorEvents.contains(.callEnded(reason: "hangup")) }
        let names = Self.names(Self.events(in: events))
        XCTAssertEqual(names.filter { $0 != "connected" && $0 != "registered" },
                       ["ringing", "accepted", "media-connected", "first-frame", "decoder", "ended"])
        XCTAssertEqual(Self.events(in: events).last?["reason"] as? String, "shutdown")
        door.stop()
    }

    func testDemoCompletesACall() throws {
        let result = try run(["--demo"], timeout: 40)
        XCTAssertEqual(result.status, 0, result.out + result.err)
        XCTAssertTrue(result.out.contains("door opened              yes"), result.out)
        XCTAssertTrue(result.out.contains("result                   OK"), result.out)
    }

    /// A host whose only interface is `lo` must still complete a call.
    func testCallInsideANetworkNamespaceWithOnlyLoopback() throws {
        guard getuid() == 0, let probe = try? Process.run(URL(fileURLWithPath: "/usr/bin/unshare"), arguments: ["-n", "true"]) else {
            throw XCTSkip("needs root and unshare to make a network namespace")
        }
        probe.waitUntilExit()
        guard probe.terminationStatus == 0 else { throw XCTSkip("unshare -n is not permitted here") }
        let bin = Self.binaries.path
        let directory = temporaryDirectory()
        let script = """
        set -e
        ip link set lo up
        ip -o addr show | grep -v ' lo ' && exit 3
        "\(bin)/c1nk-gst-server" --port 18770 > "\(directory)/server.log" 2>&1 &
        server=$!
        # Until the server listens on 18770 (0x4952) and the answerer has registered with it.
        until grep -q ':4952 00000000:0000 0A' /proc/net/tcp; do sleep 0.05; done
        "\(bin)/c1nk-gst-answer" --server ws://127.0.0.1:18770/ws --stun none --ice-local-ip 127.0.0.1 \
            --answer auto --hangup-after 2 --exit-after-calls 1 --ringtone none \
            --sink fakesink --audio-sink fakesink --audio-source "audiotestsrc is-live=true" \
            --device-id-file "\(directory)/id" --events "\(directory)/events.jsonl" 2> "\(directory)/answer.log" &
        answer=$!
        until grep -qs '"registered"' "\(directory)/events.jsonl"; do sleep 0.05; done
        "\(bin)/c1nk-gst-door" --server ws://127.0.0.1:18770/ws --ring > "\(directory)/door.log" 2>&1
        wait $answer
        kill $server
        """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
        process.arguments = ["-n", "/bin/sh", "-c", script]
        try process.run()
        MainContext.run(timeout: 40) { !process.isRunning }
        if process.isRunning { process.terminate() }
        XCTAssertEqual(process.terminationStatus, 0, (try? String(contentsOfFile: directory + "/answer.log", encoding: .utf8)) ?? "")
        let names = Self.names(Self.events(in: directory + "/events.jsonl"))
        XCTAssertTrue(names.contains("media-connected"), "\(names)")
        XCTAssertTrue(names.contains("first-frame"), "\(names)")
        XCTAssertEqual(Self.events(in: directory + "/events.jsonl").last?["reason"] as? String, "hangup")
    }
}
