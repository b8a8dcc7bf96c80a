import Foundation
import Glibc
import XCTest
@testable import C1nkDoor
@testable import C1nkGLib
@testable import C1nkLocal
@testable import C1nkWeb

/// A page left open for a month: `c1nk-gst-answer --web-port` sends 100,000
/// events through one open event stream (after 10,000 to warm up) and its
/// resident memory grows by 1 MB at most, while the stream delivers them all.
/// The events are `door-opened`, which the door reports unasked during an
/// accepted call (one message each, no round trip); the call's media run.
final class WebEventStreamMemoryTests: XCTestCase {
    static let warmUp = 10_000
    static let measured = 100_000

    /// The resident memory of process `pid`, in bytes.
    static func residentBytes(_ pid: Int32) -> Int {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
        return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0) * 1024
    }

    /// Counts `marker` in a file that grows, reading only what is new.
    final class StreamCounter {
        let handle: FileHandle
        let marker: [UInt8]
        private var carry: [UInt8] = []
        private(set) var count = 0
        init(path: String, marker: String) throws {
            handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
            self.marker = Array(marker.utf8)
        }
        func update() -> Int {
            let data = handle.availableData
            guard !data.isEmpty else { return count }
            let bytes = carry + Array(data)
            var i = 0
            while i + marker.count <= bytes.count {
                if bytes[i] == marker[0] && bytes[i..<i + marker.count].elementsEqual(marker) {
                    count += 1
                    i += marker.count
                } else {
                    i += 1
                }
            }
            carry = Array(bytes[max(i, bytes.count - marker.count + 1)...])
            return count
        }
    }

    func testOneHundredThousandEventsThroughOneStreamKeepTheAnswerersMemoryFlat() throws {
        Log.echoToStandardError = false
        defer { Log.echoToStandardError = true }
        let (server, door) = try AnswerCommandTests.serverAndDoor(configure: {
            $0.media.width = 160
            $0.media.height = 120
            $0.media.framerate = 10
        }) { _ in }
        defer { door.stop(); server.stop() }
        let answerer = try WebCommandTests.startAnswerer(server: server, extra: ["--quiet"])
        defer { answerer.command.signal(SIGTERM); _ = answerer.command.wait() }
        let pid = answerer.command.process.processIdentifier

        var browser = WebClient(port: answerer.port)
        XCTAssertEqual(browser.login(WebCommandTests.password).status, 200)
        waitUntil("registered") { door.isReady && (browser.request("GET", "/api/state").json["online"] as? Bool ?? false) }
        door.ring()
        waitUntil("ringing") { browser.request("GET", "/api/state").json["state"] as? String == "ringing" }
        XCTAssertEqual(browser.request("POST", "/api/command", json: ["command": "accept"]).status, 200)
        waitUntil("in a call") { browser.request("GET", "/api/state").json["state"] as? String == "call" }

        // One stream, read by curl as a browser would, into a file.
        let output = answerer.directory + "/month.txt"
        let stream = Process()
        stream.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        stream.arguments = ["-skN", "--max-time", "600", "-o", output, "-H", "Cookie: c1nk_session=" + browser.cookie!,
                            "https://127.0.0.1:\(answerer.port)/api/events"]
        try stream.run()
        defer { if stream.isRunning { stream.terminate() } }
        waitUntil("the stream's first state") { ((try? String(contentsOfFile: output, encoding: .utf8)) ?? "").contains("event: state") }
        let counter = try StreamCounter(path: output, marker: "event: door-opened\n")

        var sent = 0
        /// `count` more events, at most 2,000 on the way at once; false when the stream stops delivering.
        func pump(_ count: Int) -> Bool {
            let target = sent + count
            while sent < target {
                let batch = min(500, target - sent)
                for _ in 0..<batch { door.reportOpened() }
                sent += batch
                guard MainContext.run(timeout: 20, until: { counter.update() >= sent - 2_000 }) else { return false }
            }
            return MainContext.run(timeout: 20) { counter.update() >= target }
        }

        XCTAssertTrue(pump(Self.warmUp), "the warm-up's events came through: \(counter.update()) of \(sent)")
        _ = MainContext.run(timeout: 1) { false }
        let before = Self.residentBytes(pid)
        var peak = before
        let sampler = GLibTimer(after: 0.1, repeats: true) { peak = max(peak, Self.residentBytes(pid)) }
        let started = MainContext.monotonicSeconds()
        let delivered = pump(Self.measured)
        let seconds = MainContext.monotonicSeconds() - started
        _ = MainContext.run(timeout: 1) { false }
        sampler.cancel()
        let after = Self.residentBytes(pid)
        let received = counter.update()
        print(String(format: "web event stream: %d events in %.1f s (%.0f/s) through one stream, the answerer's resident memory %.1f → %.1f MB (%+.0f KiB, peak %+.0f KiB); %d of %d delivered",
                     Self.measured, seconds, Double(Self.measured) / seconds, Double(before) / 1e6, Double(after) / 1e6,
                     Double(after - before) / 1024, Double(peak - before) / 1024, received, sent))
        XCTAssertTrue(delivered, "the stream delivered: \(received) of \(sent)")
        XCTAssertGreaterThanOrEqual(received, sent - 10, "the stream carried (nearly) every event")
        XCTAssertTrue(stream.isRunning, "the stream is still open")
        XCTAssertEqual((browser.request("GET", "/api/state").json["state"] as? String), "call", "the call went on")
        XCTAssertLessThanOrEqual(after - before, 1024 * 1024, "the answerer's resident memory grew by at most 1 MB")
        XCTAssertTrue(answerer.command.process.isRunning, answerer.command.stderr)
    }
}
