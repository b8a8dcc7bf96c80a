import XCTest
@testable import C1nkMedia

final class MeasurementTests: XCTestCase {
    func testMeasuredCallReportsDecodeAndGlassToGlassLatency() throws {
        let harness = try CallHarness(door: { $0.stampTime = true }) { options in
            options.answerMode = .auto
            // Frames lost to a busy CPU are dropped until the next keyframe, never shown broken: give it time.
            options.hangupAfter = 4
            options.media.measure = true
        }
        defer { harness.stop() }
        harness.door.ring()
        waitUntil("measurements", timeout: 15) { harness.count("measurements") == 1 }
        let event = try XCTUnwrap(harness.lastEvent("measurements"))
        let decode = try XCTUnwrap(event["decodeMs"] as? [String: Any])
        let glass = try XCTUnwrap(event["glassToGlassMs"] as? [String: Any])
        XCTAssertGreaterThan(decode["count"] as? Int ?? 0, 30)
        XCTAssertGreaterThan(decode["p50"] as? Double ?? 0, 0)
        XCTAssertGreaterThan(glass["count"] as? Int ?? 0, 30, "stamps decode")
        let p50 = glass["p50"] as? Double ?? 0
        print("measured in a test call: decode \(decode), glass-to-glass \(glass)")
        XCTAssertGreaterThan(p50, 0)
        XCTAssertLessThan(p50, 2000)
    }
}
