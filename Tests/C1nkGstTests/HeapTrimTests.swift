import CGStreamer
import Foundation
import XCTest
@testable import C1nkGLib

/// The answerer's trim of the heap after a call (docs/benchmarks.md, "Soak").
final class HeapTrimTests: XCTestCase {
    /// Requests close together make one trim, after the delay.
    func testRequestsCloseTogetherMakeOneTrimAfterTheDelay() {
        let trim = HeapTrim(delay: 0.1)
        trim.schedule()
        trim.schedule()
        XCTAssertEqual(trim.count, 0, "not before the delay")
        XCTAssertTrue(waitUntil("the trim", timeout: 10) { trim.count == 1 })
        // Two delays more: HeapTrim's timer is the main context's own (it takes no clock).
        MainContext.spin(0.2)
        XCTAssertEqual(trim.count, 1, "one trim for both requests")
    }

    /// No trim while a call is in progress: it is tried again after the delay.
    func testATrimWaitsUntilNoCallIsInProgress() {
        let trim = HeapTrim(delay: 0.05)
        var inCall = true
        var tries = 0
        trim.isQuiet = {
            tries += 1
            return !inCall
        }
        trim.schedule()
        XCTAssertTrue(waitUntil("three tries during the call") { tries >= 3 })
        XCTAssertEqual(trim.count, 0, "no trim during a call")
        inCall = false
        XCTAssertTrue(waitUntil("the trim once the call is over", timeout: 10) { trim.count == 1 })
    }

    /// Memory freed below a block still in use stays resident until the trim
    /// gives its pages back: what a call's teardown leaves in glibc's arenas.
    func testTheTrimReturnsFreedPagesToTheSystem() throws {
        let environment = ProcessInfo.processInfo.environment
        if environment["ASAN_OPTIONS"] != nil || environment["TSAN_OPTIONS"] != nil {
            throw XCTSkip("a sanitizer's allocator replaces glibc's")
        }
        func rssKiB() -> Int {
            let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
            let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
            return Int(line.split(whereSeparator: { $0 == " " || $0 == "\t" }).dropFirst().first ?? "") ?? -1
        }
        _ = c1nk_malloc_trim()
        // 32 MB in 16 KB blocks (below the mmap threshold: from the heap),
        // touched, then all freed but the last, which pins the heap's top.
        let blocks = (0..<2048).map { _ -> UnsafeMutableRawPointer in
            let block = malloc(16 * 1024)!
            memset(block, 1, 16 * 1024)
            return block
        }
        blocks.dropLast().forEach { free($0) }
        let before = rssKiB()
        _ = c1nk_malloc_trim()
        let after = rssKiB()
        free(blocks.last!)
        XCTAssertGreaterThan(before - after, 16 * 1024, "RSS \(before) KiB → \(after) KiB: at least half the freed 32 MB returned")
    }
}
