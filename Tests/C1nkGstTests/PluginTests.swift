import Foundation
import XCTest
@testable import C1nkDoor
@testable import C1nkGLib
@testable import C1nkLocal

/// The GStreamer plugin `libgstc1nk.so` as a GStreamer user runs it:
/// gst-inspect-1.0 and gst-launch-1.0 subprocesses that find it in the build folder.
final class PluginTests: XCTestCase {
    static let plugin = AnswerCommandTests.binaries.appendingPathComponent("libgstc1nk.so")
    /// A registry of its own, so that no cached registry of this user hides a rebuilt plugin.
    static let registry = temporaryDirectory() + "/registry.bin"

    /// A gst tool with the build folder on GST_PLUGIN_PATH; output to files so nothing blocks.
    final class Tool {
        let process = Process()
        let output: String

        /// `name`: a tool in /usr/bin, or a path.
        init(_ name: String, _ arguments: [String], environment: [String: String] = [:]) throws {
            // A plugin built with a sanitizer cannot be loaded by the uninstrumented gst tools.
            if let scratch = ["/.build-asan/", "/.build-tsan/"].first(where: { PluginTests.plugin.path.contains($0) }) {
                throw XCTSkip("the plugin in \(scratch) is built with a sanitizer that gst-launch-1.0 does not load")
            }
            for file in [PluginTests.plugin.path] + (name.hasPrefix("/") ? [name] : []) where !FileManager.default.fileExists(atPath: file) {
                throw XCTSkip("\(file) is not built")
            }
            let directory = temporaryDirectory()
            output = directory + "/output"
            FileManager.default.createFile(atPath: output, contents: nil)
            process.executableURL = URL(fileURLWithPath: name.hasPrefix("/") ? name : "/usr/bin/" + name)
            process.arguments = arguments
            process.environment = ProcessInfo.processInfo.environment.merging([
                "GST_PLUGIN_PATH": AnswerCommandTests.binaries.path, "GST_REGISTRY": PluginTests.registry,
                "XDG_STATE_HOME": directory,
            ]) { $1 }.merging(environment) { $1 }
            let handle = FileHandle(forWritingAtPath: output)
            process.standardOutput = handle
            process.standardError = handle
            process.standardInput = FileHandle.nullDevice
            try process.run()
        }

        var text: String { (try? String(contentsOfFile: output, encoding: .utf8)) ?? "" }

        /// Waits (iterating the main context, where in-process servers live) for the exit status.
        @discardableResult
        func wait(timeout: Double = 20) -> Int32? {
            guard MainContext.run(timeout: timeout, until: { !process.isRunning }) else {
                process.terminate()
                return nil
            }
            return process.terminationStatus
        }

        /// The fields of the element messages named `name` in `gst-launch-1.0 -m` output
        /// (of the element named `element` only, when given).
        func messages(_ name: String, from element: String? = nil) -> [[String: String]] {
            text.split(separator: "\n").compactMap { line -> [String: String]? in
                if let element, !line.contains("from element \"\(element)\"") { return nil }
                guard let start = line.range(of: "(element): \(name), ") else { return nil }
                var fields: [String: String] = [:]
                for pair in line[start.upperBound...].split(separator: ", ") {
                    let parts = pair.split(separator: "=", maxSplits: 1)
                    guard parts.count == 2 else { continue }
                    var value = String(parts[1].trimmingCharacters(in: CharacterSet(charactersIn: ";")))
                    if value.hasPrefix("("), let close = value.firstIndex(of: ")") { value = String(value[value.index(after: close)...]) }
                    fields[String(parts[0])] = value
                }
                return fields
            }
        }
    }

    func testInspectListsThePluginAndItsElements() throws {
        let inspect = try Tool("gst-inspect-1.0", ["c1nk"])
        XCTAssertEqual(inspect.wait(), 0, inspect.text)
        for line in ["c1nkdoorbin: c1nk door bell", "c1nkstamp: c1nk time stamp", "c1nklatency: c1nk latency",
                     "License                  Proprietary", "3 elements"] {
            XCTAssertTrue(inspect.text.contains(line), "\(line) in\n\(inspect.text)")
        }
        let doorbin = try Tool("gst-inspect-1.0", ["c1nkdoorbin"])
        XCTAssertEqual(doorbin.wait(), 0, doorbin.text)
        for name in ["server", "device-id-file", "trust-ca", "answer", "answer-delay", "latency", "stun-server",
                     "turn-server", "ice-local-ip", "door-name", "\"ringing\"", "\"ended\"", "\"door-opened\"",
                     "\"accept\"", "\"reject\"", "\"open-door\"", "\"hangup\"", "\"mute\"", "SRC: 'video'", "SRC: 'audio'",
                     "SINK template: 'mic'"] {
            XCTAssertTrue(doorbin.text.contains(name), "\(name) in gst-inspect-1.0 c1nkdoorbin")
        }
    }

    /// The stamp survives a lossy codec and comes back as latency statistics on the bus.
    func testStampAndLatencyPostStatisticsOnTheBus() throws {
        let launch = try Tool("gst-launch-1.0", ["-m", "videotestsrc", "num-buffers=30", "!",
                                                 "video/x-raw,width=320,height=240,framerate=30/1", "!", "c1nkstamp", "!",
                                                 "jpegenc", "!", "jpegdec", "!", "c1nklatency", "!", "fakesink"])
        XCTAssertEqual(launch.wait(), 0, launch.text)
        let final = try XCTUnwrap(launch.messages("c1nk-latency").last, launch.text)
        XCTAssertEqual(final["final"], "true")
        XCTAssertEqual(final["frames"], "30", launch.text)
        XCTAssertEqual(final["unreadable"], "0")
        XCTAssertEqual(final["intact"], "30")
        XCTAssertEqual(final["sent"], "30")
        XCTAssertLessThan(Double(final["max-ms"] ?? "") ?? .infinity, 5000)
    }

    /// Frames without a stamp are counted as unreadable, not measured.
    func testLatencyCountsFramesWithoutAStamp() throws {
        let launch = try Tool("gst-launch-1.0", ["-m", "videotestsrc", "num-buffers=10", "!", "c1nklatency", "!", "fakesink"])
        XCTAssertEqual(launch.wait(), 0, launch.text)
        let final = try XCTUnwrap(launch.messages("c1nk-latency").last, launch.text)
        XCTAssertEqual(final["frames"], "0")
        XCTAssertEqual(final["unreadable"], "10")
    }

    func testBadPropertiesFailTheChangeToReadyNamingTheProperty() throws {
        let cases: [([String], String)] = [
            (["server=http://example.org"], "property 'server' takes a ws:// or wss:// URL, not 'http://example.org'"),
            ([], "property 'server' is not set"),
            (["server=ws://127.0.0.1:1/ws", "latency=-1"], "property 'latency' takes milliseconds from 0 to 10000, not -1"),
            (["server=ws://127.0.0.1:1/ws", "repair-window=20000"], "property 'repair-window' takes milliseconds from 0 to 10000, not 20000"),
            (["server=ws://127.0.0.1:1/ws", "answer=sometimes"], "property 'answer' takes auto or manual, not 'sometimes'"),
            (["server=ws://127.0.0.1:1/ws", "ice-local-ip=localhost"], "property 'ice-local-ip' takes an IP address"),
        ]
        for (properties, message) in cases {
            let launch = try Tool("gst-launch-1.0", ["c1nkdoorbin"] + properties + ["!", "fakesink"])
            XCTAssertNotEqual(launch.wait(), 0, "\(properties): \(launch.text)")
            XCTAssertTrue(launch.text.contains(message), "\(properties): \(launch.text)")
            XCTAssertFalse(launch.text.contains("CRITICAL"), launch.text)
        }
    }

    /// gst-launch-1.0 answers the simulated door: events on the bus, the
    /// door's stamped frames counted by c1nklatency after the bin, the
    /// resident's tone heard at the door; set to NULL mid-call (Ctrl-C),
    /// the element hangs up and the door hears it, and GStreamer's leaks
    /// tracer finds nothing of a pipeline left.
    func testGstLaunchAnswersADoorAndHangsUpWhenSetToNull() throws {
        Log.echoToStandardError = false
        defer { Log.echoToStandardError = true }
        var doorEvents: [SimulatedDoor.Event] = []
        let (server, door) = try AnswerCommandTests.serverAndDoor(configure: { $0.media.stampTime = true }) { doorEvents.append($0) }
        defer { door.stop() }
        let directory = temporaryDirectory()
        let launch = try Tool("gst-launch-1.0", [
            "-m", "c1nkdoorbin", "name=door", "server=\(server.url)", "answer=auto", "stun-server=none",
            "ice-local-ip=127.0.0.1", "device-id-file=\(directory)/id",
            "door.video", "!", "c1nklatency", "report-interval=500", "!", "fakesink",
            "door.audio", "!", "fakesink",
            "audiotestsrc", "is-live=true", "wave=sine", "freq=1000", "volume=0.5", "!", "door.mic"],
                          environment: ["GST_TRACERS": "leaks", "GST_DEBUG": "GST_TRACER:7", "GST_DEBUG_NO_COLOR": "1"])
        defer { if launch.process.isRunning { launch.process.terminate() } }
        waitUntil("the element registered") { door.isReady && server.connectedAppIds.count == 1 }
        door.ring()
        waitUntil("first frame on the bus", timeout: 15) { launch.messages("c1nk-event").contains { $0["event"] == "first-frame" } }
        let connected = MainContext.monotonicSeconds()
        waitUntil("stamped frames counted after the bin") {
            launch.messages("c1nk-latency").contains { Int($0["frames"] ?? "") ?? 0 > 0 }
        }
        waitUntil("the resident's tone heard at the door") { door.loudestHeard(since: connected) > -40 }
        let ringing = try XCTUnwrap(launch.messages("c1nk-event").first { $0["event"] == "ringing" })
        XCTAssertEqual(ringing["doorName"].map { $0.contains("vchod") }, true, "\(ringing)")
        launch.process.interrupt() // gst-launch-1.0 sets the pipeline to NULL
        XCTAssertEqual(launch.wait(timeout: 15), 0, launch.text)
        waitUntil("the door to hear the hangup") { doorEvents.contains(.callEnded(reason: "hangup")) }
        let names = launch.messages("c1nk-event").compactMap { $0["event"] }
        XCTAssertEqual(names.filter { !["connected", "registered", "levels"].contains($0) },
                       ["ringing", "accepted", "media-connected", "first-frame", "decoder"], launch.text)
        XCTAssertFalse(launch.text.contains("CRITICAL"), launch.text)
        // Left at exit: latency queries (GStreamer 1.22's, see docs/benchmarks.md) and
        // the process-wide DTLS agent of the start-up warm-up; no element, pad, bus or buffer.
        let alive = launch.text.split(separator: "\n").filter { $0.contains("object-alive, type-name=(string)") && !$0.contains("%s") }
            .compactMap { $0.components(separatedBy: "type-name=(string)").last?.split(separator: ",").first.map(String.init) }
        XCTAssertEqual(Set(alive).subtracting(["GstQuery", "GstDtlsAgent"]), [], "left alive: \(alive)")
    }

    /// Two elements in one process, two devices: while one is in a call
    /// with the first door, the other answers the second door. Their audio
    /// pads are left unlinked (`c1nkdoorbin ! fakesink`), which is no error.
    func testTwoElementsInOneProcessAnswerTwoDoors() throws {
        Log.echoToStandardError = false
        defer { Log.echoToStandardError = true }
        let server = try SignalServer()
        var doors: [SimulatedDoor] = []
        var heard: [String: [SimulatedDoor.Event]] = [:]
        for id in ["door-1", "door-2"] {
            var options = SimulatedDoor.Options(serverURL: server.url)
            options.doorId = id
            options.media.ice = .loopback
            let door = try SimulatedDoor(options)
            door.onEvent = { heard[id, default: []].append($0) }
            door.start()
            doors.append(door)
        }
        defer { doors.forEach { $0.stop() } }
        let directory = temporaryDirectory()
        var arguments = ["-m"]
        for name in ["a", "b"] {
            arguments += ["c1nkdoorbin", "name=\(name)", "server=\(server.url)", "answer=auto", "stun-server=none",
                          "ice-local-ip=127.0.0.1", "device-id-file=\(directory)/\(name)-id", "!", "fakesink"]
        }
        let launch = try Tool("gst-launch-1.0", arguments)
        defer { if launch.process.isRunning { launch.process.terminate() } }
        func firstFrames(_ element: String) -> [String] {
            launch.messages("c1nk-event", from: element).filter { $0["event"] == "first-frame" }.compactMap { $0["callId"] }
        }
        waitUntil("both elements registered") { doors.allSatisfy(\.isReady) && server.connectedAppIds.count == 2 }
        doors[0].ring()
        waitUntil("the first door answered", timeout: 15) { !firstFrames("a").isEmpty || !firstFrames("b").isEmpty }
        doors[1].ring()
        waitUntil("the second door answered by the other element", timeout: 15) { !firstFrames("a").isEmpty && !firstFrames("b").isEmpty }
        XCTAssertNotEqual(firstFrames("a"), firstFrames("b"))
        launch.process.interrupt()
        XCTAssertEqual(launch.wait(timeout: 15), 0, launch.text)
        waitUntil("both doors to hear the hangup") {
            heard.values.filter { $0.contains(.callEnded(reason: "hangup")) }.count == 2
        }
    }

    /// A C app drives the element over GObject alone (accept on `ringing`,
    /// `mute` after the first frame, `open-door` once muted, `hangup` on
    /// `door-opened`) and never
    /// iterates GLib's default main context: the element runs on its own.
    func testAnAppThatNeverRunsTheDefaultContextDrivesTheElementBySignals() throws {
        Log.echoToStandardError = false
        defer { Log.echoToStandardError = true }
        var doorEvents: [SimulatedDoor.Event] = []
        let (server, door) = try AnswerCommandTests.serverAndDoor { doorEvents.append($0) }
        defer { door.stop() }
        let app = try Tool(AnswerCommandTests.binaries.appendingPathComponent("c1nk-gst-plugin-app").path,
                           [server.url, temporaryDirectory() + "/id"])
        defer { if app.process.isRunning { app.process.terminate() } }
        waitUntil("the app registered") { door.isReady && server.connectedAppIds.count == 1 }
        door.ring()
        waitUntil("the door opened and the call hung up", timeout: 20) {
            doorEvents.contains(.doorOpened) && doorEvents.contains(.callEnded(reason: "hangup"))
        }
        XCTAssertEqual(app.wait(timeout: 15), 0, app.text)
        let lines = app.text.split(separator: "\n").map(String.init)
        let signals = lines.filter { !$0.hasPrefix("event ") && $0 != "ready" }.map { $0.split(separator: " ").first.map(String.init) ?? "" }
        XCTAssertEqual(signals, ["ringing", "muted", "door-opened", "ended"], app.text)
        XCTAssertTrue(lines.contains { $0.hasPrefix("ended ") && $0.hasSuffix(" hangup") }, app.text)
    }
}
