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
        return guarding.admit(buffer, now: now).verdict
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

    /// Loss is read from the browser's report blocks: lost packets add up,
    /// late ones come and go.
    func testReportsOfPacketsLostAddingUpAreLossAndOfPacketsLateAreNot() {
        let guarding = BrowserFeedbackGuard(now: 0)
        func reportsLoss(_ lost: Int, at now: Double) -> Bool {
            let buffer = HostileRTCP.buffer(HostileRTCP.receiverReport(on: 7, cumulativeLost: lost))
            defer { gst_buffer_unref(buffer) }
            return guarding.admit(buffer, now: now).link == .loss
        }
        // Reordering: a few in flight behind the newest at each report.
        for (index, lost) in [0, 5, 1, 6, 0, 4, 2, 7, 3].enumerated() {
            XCTAssertFalse(reportsLoss(lost, at: Double(index)), "late packets at report \(index)")
        }
        XCTAssertFalse(reportsLoss(9, at: 9), "9 more than the least of the last 5 s")
        XCTAssertTrue(reportsLoss(14, at: 10), "12 more: loss")
        for second in 11...15 { _ = reportsLoss(14, at: Double(second)) }
        XCTAssertFalse(reportsLoss(14, at: 16), "none lost in the last 5 s")
        // An outage: the browser silent for 3 s, its first report after counting what it lost meanwhile.
        let buffer = HostileRTCP.buffer(HostileRTCP.receiverReport(on: 7, cumulativeLost: 300))
        defer { gst_buffer_unref(buffer) }
        XCTAssertEqual(guarding.admit(buffer, now: 19).link, .outage)
        XCTAssertFalse(reportsLoss(301, at: 20), "the window starts again after it")
    }

    func testLossIsSeenOnAnyStreamAndFollowsOnlySoMany() {
        var window = LossWindow()
        window.maximumStreams = 2
        func reports(_ blocks: [(UInt32, Int)]) -> [LossWindow.Report] { blocks.map { LossWindow.Report(source: $0.0, cumulativeLost: $0.1) } }
        XCTAssertEqual(window.add(reports([(1, 0), (2, 0)]), now: 0), .steady)
        XCTAssertEqual(window.add(reports([(3, 0)]), now: 0.5), .steady, "a third stream is not followed")
        XCTAssertEqual(window.add(reports([(3, 100)]), now: 1), .steady, "nor its loss")
        XCTAssertEqual(window.add(reports([(1, 1), (2, 10)]), now: 1), .loss, "the second stream's 10 lost")
        XCTAssertEqual(window.add(reports([(2, 11)]), now: 6.5), .steady, "the window forgets what is older than 5 s")
        XCTAssertEqual(window.add([LossWindow.Report(source: 2, cumulativeLost: 40, jitter: 1_500)], now: 7), .steady,
                       "a report of 17 ms of jitter is not read: packets overtaken count as lost there")
        XCTAssertEqual(window.add([LossWindow.Report(source: 2, cumulativeLost: 40, jitter: 300)], now: 7.5), .loss)
    }

    /// A NACK past the budget is cut from its compound packet; the report
    /// and the keyframe request beside it go on.
    func testANACKPastTheBudgetIsCutAndWhatIsBesideItGoesOn() throws {
        let nack = HostileRTCP.nack(7, from: 10, count: 300)
        let compound = nack + Array(HostileRTCP.pli(7).dropFirst(HostileRTCP.receiverReport().count))
        let cut = RTCPContents.cuttingNACKs(from: HostileRTCP.buffer(compound))
        defer { gst_buffer_unref(cut.buffer) }
        XCTAssertTrue(cut.rest)
        var types: [GstRTCPType] = []
        var rtcp = GstRTCPBuffer()
        XCTAssertEqual(gst_rtcp_buffer_map(cut.buffer, GST_MAP_READ, &rtcp), 1)
        var packet = GstRTCPPacket()
        var more = gst_rtcp_buffer_get_first_packet(&rtcp, &packet) != 0
        while more {
            types.append(gst_rtcp_packet_get_type(&packet))
            more = gst_rtcp_packet_move_to_next(&packet) != 0
        }
        gst_rtcp_buffer_unmap(&rtcp)
        XCTAssertEqual(types, [GST_RTCP_TYPE_RR, GST_RTCP_TYPE_PSFB], "the receiver report and the PLI")
        XCTAssertEqual(try XCTUnwrap(RTCPContents(cut.buffer)).retransmissionsAsked, 0)
        let alone = RTCPContents.cuttingNACKs(from: HostileRTCP.buffer(Array(nack.dropFirst(HostileRTCP.receiverReport().count))))
        defer { gst_buffer_unref(alone.buffer) }
        XCTAssertFalse(alone.rest, "a NACK alone leaves nothing")
    }

    func testRetransmissionsAreEarnedByTheVideoSent() {
        let guarding = BrowserFeedbackGuard(limits: .init(retransmissionBurst: 100), now: 0)
        XCTAssertEqual(verdict(guarding, HostileRTCP.nack(7, from: 10, count: 34)), .admitted, "the budget starts full")
        XCTAssertEqual(verdict(guarding, HostileRTCP.nack(7, from: 10, count: 34)), .admitted)
        XCTAssertEqual(verdict(guarding, HostileRTCP.nack(7, from: 10, count: 34)), .pastRetransmissionBudget, "32 left, 34 asked")
        guarding.sent(videoPackets: 2)
        XCTAssertEqual(verdict(guarding, HostileRTCP.nack(7, from: 10, count: 34)), .admitted, "two more packets sent, two more may be asked")
        guarding.sent(videoPackets: 10_000)
        XCTAssertEqual(verdict(guarding, HostileRTCP.nack(7, from: 10, count: 85)), .admitted, "at most the burst is kept")
        XCTAssertEqual(verdict(guarding, HostileRTCP.nack(7, from: 10, count: 17)), .pastRetransmissionBudget, "15 left")
        guarding.sent(videoPackets: 10_000)
        XCTAssertEqual(verdict(guarding, HostileRTCP.nack(7, from: 10, count: 450)), .admitted,
                       "a NACK for more than the history (a drop-out's gap) counts as the history")
        XCTAssertEqual(verdict(guarding, HostileRTCP.nack(7, from: 10, count: 1)), .pastRetransmissionBudget, "which it spent")
        guarding.sent(upToSequence: 65_530)
        XCTAssertEqual(verdict(guarding, HostileRTCP.nack(7, from: 10, count: 1)), .pastRetransmissionBudget, "the first sequence number read earns nothing")
        guarding.sent(upToSequence: 11)
        XCTAssertEqual(verdict(guarding, HostileRTCP.nack(7, from: 10, count: 17)), .admitted, "17 sent since, across the wrap")
        XCTAssertEqual(verdict(guarding, HostileRTCP.nack(7, from: 10, count: 1)), .pastRetransmissionBudget)
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
