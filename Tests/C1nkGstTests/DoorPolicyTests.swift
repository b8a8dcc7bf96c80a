import XCTest
@testable import C1nkDoor

/// The simulated door's decisions apart from its pads: the spacing its
/// probes keep, what its impaired link does with each packet, how its
/// encoder is retargeted and its transceivers set. No GStreamer runs here.
final class DoorPolicyTests: XCTestCase {
    func testMinimumSpacingLetsTheFirstEventThroughThenHoldsBackTheCloseOnes() {
        var spacing = MinimumSpacing(microseconds: 500_000)
        XCTAssertTrue(spacing.admits(at: 10_000_000))
        XCTAssertFalse(spacing.admits(at: 10_499_999), "closer than the spacing")
        XCTAssertTrue(spacing.admits(at: 10_500_000), "exactly the spacing later")
        XCTAssertFalse(spacing.admits(at: 10_600_000), "measured from the last one let through")
        XCTAssertTrue(spacing.admits(at: 11_000_000))
    }

    private func policy(_ impairment: NetworkImpairment = NetworkImpairment(), spaces: Bool = false) -> ImpairedLinkPolicy {
        var policy = ImpairedLinkPolicy(impairment, spacesRetransmissions: spaces)
        policy.lossyPayloadTypes = [96]
        policy.repairPayloadTypes = [97]
        return policy
    }

    func testImpairedLinkLosesFirstSendsOfVideoOnlyAndCountsThem() {
        var impairment = NetworkImpairment()
        impairment.lossPercent = 100
        var link = policy(impairment)
        XCTAssertFalse(link.keeps(payloadType: 96, at: 0) { nil }, "video: lost")
        XCTAssertTrue(link.keeps(payloadType: 97, at: 1) { nil }, "retransmission: never lost")
        XCTAssertTrue(link.keeps(payloadType: 111, at: 2) { nil }, "voice: not the link's to lose")
        XCTAssertEqual(link.counts, .init(videoSent: 1, videoDropped: 1, retransmissions: 1, outageDropped: 0))
    }

    func testImpairedLinkSendsNothingDuringTheOutageCountedFromTheFirstPacket() {
        var impairment = NetworkImpairment()
        impairment.outageAt = 1
        impairment.outageMilliseconds = 200
        var link = policy(impairment)
        XCTAssertTrue(link.keeps(payloadType: 96, at: 5_000_000) { nil }, "the first packet starts the clock")
        XCTAssertFalse(link.keeps(payloadType: 97, at: 6_000_000) { nil }, "the outage takes retransmissions too")
        XCTAssertFalse(link.keeps(payloadType: 111, at: 6_199_999) { nil })
        XCTAssertTrue(link.keeps(payloadType: 96, at: 6_200_000) { nil }, "over")
        XCTAssertEqual(link.counts.outageDropped, 2)
    }

    func testSpacedRetransmissionsResendAPacketAtMostOncePerSpacing() {
        var link = policy(spaces: true)
        let spacing = ImpairedLinkPolicy.retransmissionSpacing
        XCTAssertTrue(link.keeps(payloadType: 97, at: 0) { 7 })
        XCTAssertFalse(link.keeps(payloadType: 97, at: spacing - 1) { 7 }, "the same packet again, too soon")
        XCTAssertTrue(link.keeps(payloadType: 97, at: spacing - 1) { 8 }, "another packet")
        XCTAssertTrue(link.keeps(payloadType: 97, at: spacing) { 7 }, "a spacing later")
        XCTAssertEqual(link.counts.retransmissions, 3)

        var unspaced = policy()
        var read = false
        XCTAssertTrue(unspaced.keeps(payloadType: 97, at: 0) { read = true; return 7 })
        XCTAssertTrue(unspaced.keeps(payloadType: 97, at: 1) { 7 })
        XCTAssertFalse(read, "without spacing the packet's payload is not read")
    }

    func testEncoderRetargetsInItsOwnUnits() {
        XCTAssertEqual(DoorMediaSession.VideoCodec.h264.rateProperty(kbps: 450).name, "bitrate")
        XCTAssertEqual(DoorMediaSession.VideoCodec.h264.rateProperty(kbps: 450).value, "450")
        for codec in [DoorMediaSession.VideoCodec.vp8, .vp9] {
            XCTAssertEqual(codec.rateProperty(kbps: 450).name, "target-bitrate")
            XCTAssertEqual(codec.rateProperty(kbps: 450).value, "450000")
        }
    }

    func testVideoIsSendOnlyAndAudioBothWays() {
        XCTAssertEqual(DoorMediaSession.direction(ofTransceiver: 0), "sendonly")
        XCTAssertEqual(DoorMediaSession.direction(ofTransceiver: 1), "sendrecv")
    }

    func testTheSpeakersLevelsReportByName() {
        XCTAssertEqual(DoorMediaSession.HeardMeter(levelNamed: "heard-door"), .door)
        XCTAssertEqual(DoorMediaSession.HeardMeter(levelNamed: "heard-resident"), .resident)
        XCTAssertEqual(DoorMediaSession.HeardMeter(levelNamed: "heard-level"), .all)
        XCTAssertEqual(DoorMediaSession.HeardMeter(levelNamed: nil), .all)
    }
}
