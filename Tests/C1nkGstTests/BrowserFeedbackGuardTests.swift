import CGStreamer
import XCTest
@testable import C1nkGLib
@testable import C1nkViewers

/// What a browser's RTCP may ask of its viewer, packet by packet (the probe's
/// decisions, without a call: `ViewerHostileFeedbackTests` has the call).
final class BrowserFeedbackGuardTests: XCTestCase {
    override func setUp() { GStreamer.initialize() }

    private func verdict(_ guarding: BrowserFeedbackGuard, _ bytes: [UInt8], at now: Double = 0) -> BrowserFeedbackGuard.Verdict {
        let buffer = HostileRTCP.buffer(bytes)
        defer { gst_buffer_unref(buffer) }
        return guarding.admit(buffer, now: now)
    }

    func testPacketsThatLieAboutTheirLengthsAreDroppedAndWellFormedOnesPass() {
        let guarding = BrowserFeedbackGuard(now: 0)
        for (index, packet) in HostileRTCP.malformed.enumerated() {
            XCTAssertEqual(verdict(guarding, packet), .malformed, "malformed packet \(index): \(packet.prefix(12))")
        }
        XCTAssertEqual(verdict(guarding, HostileRTCP.receiverReport()), .admitted)
        XCTAssertEqual(verdict(guarding, HostileRTCP.pli(7)), .admitted)
        XCTAssertEqual(verdict(guarding, HostileRTCP.fir(7, sequence: 1)), .admitted)
        XCTAssertEqual(verdict(guarding, HostileRTCP.nack(7, from: 65530, count: 17)), .admitted, "a NACK across the wrap")
        XCTAssertEqual(guarding.count(.malformed), HostileRTCP.malformed.count)
    }

    func testAFloodIsCutAtTheRateWhichComesBackWithTime() {
        let guarding = BrowserFeedbackGuard(limits: .init(packetsPerSecond: 10), now: 0)
        let passed = (0..<50).filter { _ in verdict(guarding, HostileRTCP.pli(7), at: 0.01) == .admitted }.count
        XCTAssertEqual(passed, 10, "a second's worth at once, no more")
        XCTAssertEqual(verdict(guarding, HostileRTCP.pli(7), at: 0.05), .flooding)
        XCTAssertEqual(verdict(guarding, HostileRTCP.pli(7), at: 0.25), .admitted, "one more each tenth of a second")
        XCTAssertEqual(guarding.count(.flooding), 41)
    }

    func testOnlyTheBrowsersFirstSSRCsAreTaken() {
        let guarding = BrowserFeedbackGuard(limits: .init(maximumSSRCs: 3), now: 0)
        for ssrc: UInt32 in [1, 2, 3] { XCTAssertEqual(verdict(guarding, HostileRTCP.receiverReport(from: ssrc)), .admitted) }
        XCTAssertEqual(verdict(guarding, HostileRTCP.receiverReport(from: 4)), .unknownSSRC, "a fourth is one too many")
        XCTAssertEqual(verdict(guarding, HostileRTCP.receiverReportFromANewSSRC()), .unknownSSRC)
        XCTAssertEqual(verdict(guarding, HostileRTCP.receiverReport(from: 2)), .admitted, "those it has go on")
        // An SDES naming a new SSRC is one too (each chunk is a source the session keeps).
        let sdes: [UInt8] = HostileRTCP.receiverReport(from: 1) + [0x81, 202] + HostileRTCP.be16(3) + HostileRTCP.be32(99) + [1, 2, 0x61, 0x62, 0, 0, 0, 0]
        XCTAssertEqual(verdict(guarding, sdes), .unknownSSRC)
    }

    func testRetransmissionsAreEarnedByTheVideoSent() {
        let guarding = BrowserFeedbackGuard(limits: .init(retransmissionBurst: 100), now: 0)
        XCTAssertEqual(verdict(guarding, HostileRTCP.nack(7, from: 10, count: 34)), .admitted, "the budget starts full")
        XCTAssertEqual(verdict(guarding, HostileRTCP.nack(7, from: 10, count: 34)), .admitted)
        XCTAssertEqual(verdict(guarding, HostileRTCP.nack(7, from: 10, count: 34)), .pastRetransmissionBudget, "32 left, 34 asked")
        guarding.sent(videoPackets: 2)
        XCTAssertEqual(verdict(guarding, HostileRTCP.nack(7, from: 10, count: 34)), .admitted, "two more packets sent, two more may be asked")
        guarding.sent(videoPackets: 10_000)
        XCTAssertEqual(verdict(guarding, HostileRTCP.nack(7, from: 10, count: 102)), .pastRetransmissionBudget, "at most the burst is kept")
        XCTAssertEqual(verdict(guarding, HostileRTCP.nack(7, from: 10, count: 85)), .admitted)
    }

    func testTheBrowserIsHeardByAnyRTCPDroppedOrNot() {
        let guarding = BrowserFeedbackGuard(now: 10)
        XCTAssertEqual(guarding.secondsSinceHeard(now: 13), 3, accuracy: 1e-9, "silent since the start")
        _ = verdict(guarding, HostileRTCP.receiverReport(), at: 14)
        XCTAssertEqual(guarding.secondsSinceHeard(now: 15), 1, accuracy: 1e-9)
        _ = verdict(guarding, HostileRTCP.malformed[0], at: 20)
        XCTAssertEqual(guarding.secondsSinceHeard(now: 20.5), 0.5, accuracy: 1e-9)
    }
}
