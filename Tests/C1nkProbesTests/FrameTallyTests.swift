import XCTest
@testable import C1nkProbes

/// Frames counted against what the camera drew: frames lost before the
/// first shown, after the last shown and to a frame rate cut all count.
final class FrameTallyTests: XCTestCase {
    func testFramesMissingAtTheStartTheEndAndInARateCutCountAsLost() {
        // 10 s at 30 fps: 1…300 drawn. The first 15 and the last 15 never
        // shown, and every other frame of 101…200 skipped (15 fps there).
        let shown = Array(16...100) + stride(from: 101, through: 200, by: 2) + Array(201...285)
        let tally = FrameTally(window: 1...300, seconds: 10, shown: shown)
        XCTAssertEqual(tally.drawn, 300)
        XCTAssertEqual(tally.intact, 85 + 50 + 85)
        XCTAssertEqual(tally.lost, 80)
        XCTAssertEqual(tally.intactPercent, 220.0 / 3, accuracy: 0.001)
        XCTAssertEqual(tally.shownPerSecond, 22, accuracy: 0.001)
        // Over the range shown alone (16…285), as before, the same frames were 81 %, not 73 %.
        XCTAssertEqual(FrameTally(window: 16...285, seconds: 9, shown: shown).intactPercent, 220.0 * 100 / 270, accuracy: 0.001)
    }

    func testRepeatedLateAndOutOfWindowFramesDoNotCount() {
        // 3 is shown after 4 (late), 4 twice, 0 and 11 are outside the window.
        let tally = FrameTally(window: 1...10, seconds: 1, shown: [0, 1, 2, 4, 3, 4, 5, 11])
        XCTAssertEqual(tally.intact, 4)
        XCTAssertEqual(tally.drawn, 10)
        XCTAssertEqual(FrameTally(window: 1...10, seconds: 0, shown: []).shownPerSecond, 0)
    }

    func testFramesTheBrowserPresentedBetweenTwoReadsCountOnlyWhenTheCountsAgree() {
        let reads: [(sequence: Int, presented: Int)] = [
            (1, 10), (2, 11),
            (4, 13),    // 3 presented, its callback missed: shown
            (6, 14),    // 5 never presented (one frame, two numbers): lost
            (9, 18),    // 7 and 8 presented, one more besides (a repeat): not counted
            (10, 19), (12, -1), (14, 21)]  // no count: as read
        let shown = FrameTally.shownSequence(reads: reads)
        XCTAssertEqual(shown, [1, 2, 3, 4, 6, 9, 10, 12, 14])
        XCTAssertEqual(FrameTally(window: 1...14, seconds: 1, shown: shown).intact, 9)
        XCTAssertEqual(FrameTally.shownSequence(reads: []), [])
    }

    func testCallsPoolByFramesNotByTheirPercentages() {
        let short = FrameTally(window: 1...10, seconds: 1, shown: Array(1...5))     // 50 %
        let long = FrameTally(window: 1...90, seconds: 3, shown: Array(1...90))     // 100 %
        let pooled = FrameTally(pooling: [short, long])
        XCTAssertEqual(pooled.drawn, 100)
        XCTAssertEqual(pooled.intact, 95)
        XCTAssertEqual(pooled.intactPercent, 95, accuracy: 0.001)
        XCTAssertEqual(pooled.shownPerSecond, 23.75, accuracy: 0.001)
    }

    func testStampedFramesFindTheLastFrameDrawnByATime() {
        let stamped = StampedFrames()
        for frame in 0..<10 { stamped.record(atMicroseconds: 1_000_000 + frame * 33_333) }
        XCTAssertEqual(stamped.count, 10)
        XCTAssertEqual(stamped.time(of: 1), 1_000_000)
        XCTAssertNil(stamped.time(of: 11))
        XCTAssertEqual(stamped.lastSequence(stampedBy: 999_999), 0)
        XCTAssertEqual(stamped.lastSequence(stampedBy: 1_000_000), 1)
        XCTAssertEqual(stamped.lastSequence(stampedBy: 1_100_000), 4)
        XCTAssertEqual(stamped.lastSequence(stampedBy: 9_000_000), 10)
    }
}
