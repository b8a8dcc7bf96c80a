import XCTest
@testable import C1nkMedia
@testable import C1nkProbes

final class MeasurementTests: XCTestCase {
    func testFrameStampSurvivesARoundTrip() {
        let (width, height) = (640, 480)
        var luma = [UInt8](repeating: 100, count: width * height)
        let stamp = 0xA5F00F
        luma.withUnsafeMutableBufferPointer { FrameStamp.write(stamp, luma: $0.baseAddress!, stride: width, width: width, height: height) }
        // Coding noise: every pixel off by up to ±40.
        for index in luma.indices { luma[index] = UInt8(clamping: Int(luma[index]) + (index % 81) - 40) }
        XCTAssertEqual(luma.withUnsafeBufferPointer { FrameStamp.read(luma: $0.baseAddress!, stride: width, width: width, height: height) }, stamp)
        let blank = [UInt8](repeating: 16, count: width * height)
        XCTAssertNil(blank.withUnsafeBufferPointer { FrameStamp.read(luma: $0.baseAddress!, stride: width, width: width, height: height) })
    }

    func testLatencyStatsPercentiles() {
        let stats = LatencyStats((1...100).map(Double.init))
        XCTAssertEqual(stats.count, 100)
        XCTAssertEqual(stats.p50, 51)
        XCTAssertEqual(stats.p95, 95)
        XCTAssertEqual(stats.p99, 99)
        XCTAssertEqual(stats.max, 100)
        XCTAssertEqual(LatencyStats([]).count, 0)
    }

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
