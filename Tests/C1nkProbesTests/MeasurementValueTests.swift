import XCTest
@testable import C1nkProbes

/// The probes' figures as values: a frame's stamp written and read back, the
/// latency percentiles, the frames shown intact.
final class MeasurementValueTests: XCTestCase {
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

    func testContinuityCountsFramesShownInTheDoorsOrder() {
        // (µs, sequence): 3 is shown late (after 4) and does not count; 5 never came.
        let shown = [(0, 1), (33_000, 2), (66_000, 4), (70_000, 3), (200_000, 6)]
        let continuity = MeasurementProbes.continuity(shown)
        XCTAssertEqual(continuity.intact, 4)
        XCTAssertEqual(continuity.sent, 6)
        XCTAssertEqual(continuity.longestFreezeMs, 134)
        XCTAssertEqual(MeasurementProbes.continuity([]).sent, 0)
    }
}
