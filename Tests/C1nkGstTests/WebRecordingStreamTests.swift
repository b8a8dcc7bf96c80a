import Foundation
import Glibc
import XCTest
@testable import C1nkGLib
@testable import C1nkWeb

/// Recordings and event streams with flat memory: a 1 GB (sparse) recording
/// downloaded twice at once over HTTPS, `Range` giving exact bytes, and an
/// event stream carrying 40 MB; the server's resident memory measured
/// throughout (it runs in this process).
final class WebRecordingStreamTests: XCTestCase {
    override func setUp() { Log.echoToStandardError = false }
    override func tearDown() { Log.echoToStandardError = true }

    static let gigabyte: Int64 = 1 << 30

    /// This process's resident memory, in bytes.
    static func residentBytes() -> Int {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
        return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0) * 1024
    }

    /// The largest growth of resident memory while `done` is false.
    static func peakGrowth(timeout: Double, until done: () -> Bool) -> (grew: Int, finished: Bool) {
        let base = residentBytes()
        var peak = base
        let sampler = GLibTimer(after: 0.05, repeats: true) { peak = max(peak, residentBytes()) }
        let finished = MainContext.run(timeout: timeout, until: done)
        sampler.cancel()
        return (max(peak, residentBytes()) - base, finished)
    }

    func testARecordingIsStreamedFromDiskWithRangesInFlatMemory() throws {
        let folder = temporaryDirectory()
        let path = folder + "/2026-12-04_131500-big.mkv"
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: nil))
        let file = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try file.truncate(atOffset: UInt64(Self.gigabyte))
        try file.seek(toOffset: 500_000_000)
        try file.write(contentsOf: Data("0123456789".utf8))
        try file.seek(toOffset: UInt64(Self.gigabyte) - 5)
        try file.write(contentsOf: Data("tail!".utf8))
        try file.close()
        let server = try WebTestServer.make(recordings: folder)
        defer { server.stop() }
        var browser = WebClient(port: server.port)
        XCTAssertEqual(browser.login(WebTestServer.password).status, 200)
        let url = "https://127.0.0.1:\(server.port)/api/recordings/2026-12-04_131500-big.mkv"

        // Two whole downloads at once.
        let downloads = try (0..<2).map { _ in
            let curl = Process()
            curl.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
            curl.arguments = ["-sk", "-o", "/dev/null", "-w", "%{http_code} %{size_download}", "--max-time", "120",
                              "-H", "Cookie: c1nk_session=" + browser.cookie!, url]
            let out = Pipe()
            curl.standardOutput = out
            try curl.run()
            return (curl, out)
        }
        let lateness = MainLoopLateness()
        let started = MainContext.monotonicSeconds()
        let (grew, finished) = Self.peakGrowth(timeout: 150) { downloads.allSatisfy { !$0.0.isRunning } }
        let seconds = MainContext.monotonicSeconds() - started
        lateness.stop()
        XCTAssertTrue(finished, "the downloads ended")
        for (_, out) in downloads {
            XCTAssertEqual(String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self), "200 \(Self.gigabyte)")
        }
        print(String(format: "web recording: 2 × 1 GiB over HTTPS in %.1f s, resident memory grew %.1f MB at most, main context late p99 %.1f ms",
                     seconds, Double(grew) / 1e6, lateness.percentile(0.99) * 1000))
        XCTAssertLessThanOrEqual(grew, 16 * 1024 * 1024)

        // Ranges, for the player to seek.
        let part = browser.request("GET", "/api/recordings/2026-12-04_131500-big.mkv", headers: ["Range: bytes=500000000-500000009"])
        XCTAssertEqual(part.status, 206)
        XCTAssertEqual(part.body, "0123456789")
        XCTAssertEqual(part.headers["content-range"], "bytes 500000000-500000009/\(Self.gigabyte)")
        XCTAssertEqual(part.headers["accept-ranges"], "bytes")
        XCTAssertEqual(part.headers["content-length"], "10")
        let tail = browser.request("GET", "/api/recordings/2026-12-04_131500-big.mkv", headers: ["Range: bytes=-5"])
        XCTAssertEqual(tail.status, 206)
        XCTAssertEqual(tail.body, "tail!")
        let beyond = browser.request("GET", "/api/recordings/2026-12-04_131500-big.mkv", headers: ["Range: bytes=\(Self.gigabyte)-"])
        XCTAssertEqual(beyond.status, 416)
        XCTAssertEqual(beyond.headers["content-range"], "bytes */\(Self.gigabyte)")
        XCTAssertEqual(browser.request("GET", "/index.html").status, 200, "the page's files come the same way")
        XCTAssertEqual(browser.request("GET", "/api/recordings/none.mkv").status, 404)
    }

    func testAnEventStreamDoesNotKeepWhatItSent() throws {
        let server = try WebTestServer.make()
        defer { server.stop() }
        var browser = WebClient(port: server.port)
        XCTAssertEqual(browser.login(WebTestServer.password).status, 200)
        let output = temporaryDirectory() + "/events"
        let stream = try browser.events(into: output)
        defer { stream.terminate() }
        XCTAssertTrue(MainContext.run(timeout: 10) { server.streamCount == 1 })
        let chunk = ": " + String(repeating: "x", count: 100 * 1024) + "\n\n"
        var sent = 0
        let sender = GLibTimer(after: 0.002, repeats: true) {
            guard sent < 400 else { return }
            server.broadcast(chunk)
            sent += 1
        }
        defer { sender.cancel() }
        func received() -> Int { ((try? FileManager.default.attributesOfItem(atPath: output))?[.size] as? Int) ?? 0 }
        let (grew, finished) = Self.peakGrowth(timeout: 60) { sent == 400 && received() >= 400 * chunk.utf8.count }
        XCTAssertTrue(finished, "the stream carried it all: \(received()) bytes")
        print(String(format: "web event stream: 40 MB sent, resident memory grew %.1f MB at most", Double(grew) / 1e6))
        XCTAssertLessThanOrEqual(grew, 16 * 1024 * 1024)
    }
}
