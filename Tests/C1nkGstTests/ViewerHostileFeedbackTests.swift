import CGStreamer
import Synchronization
import XCTest
@testable import C1nkGLib
@testable import C1nkViewers

/// A hostile browser's RTCP (it holds the SRTP keys, so what it makes reaches
/// its viewer's RTP session): floods of keyframe requests and NACKs, packets
/// that lie about their lengths, SSRCs of its own by the thousand. The call,
/// the other viewer and the main context go on at their pace, the door gets
/// keyframe requests at the call's pace, and the answerer neither grows nor
/// multiplies what it sends.
final class ViewerHostileFeedbackTests: XCTestCase {
    override func setUp() { Log.echoToStandardError = false }
    override func tearDown() { Log.echoToStandardError = true }

    static let floodSeconds = 4.0
    static let packetsPerSecond = 1000.0

    func testAFloodOfKeyframeRequestsAndMalformedRTCPReachesTheDoorPacedAndCostsTheOthersNothing() throws {
        let watched = try WatchedCall(viewers: 2)
        defer { watched.stop() }
        let hostile = watched.viewers[0]
        let media = try watched.videoSSRC(ofViewer: 0)
        let before = watched.pace(over: 2)
        let door = watched.doorKeyframeRequests.value.load(ordering: .relaxed), paced = watched.tap.keyframeRequestsSent
        let asked = hostile.keyframeRequests

        // A thousand a second: PLIs and FIRs, and one in four a packet that does not parse.
        let malformed = HostileRTCP.malformed
        let flood = HostileRTCP.Flood(into: try watched.rtcpEntry(ofViewer: 0), perSecond: Self.packetsPerSecond) { index in
            switch index % 4 {
            case 0: malformed[index / 4 % malformed.count]
            case 1: HostileRTCP.fir(media, sequence: UInt8(truncatingIfNeeded: index))
            default: HostileRTCP.pli(media)
            }
        }
        let during = watched.pace(over: Self.floodSeconds)
        flood.stop()
        let doorDuring = watched.doorKeyframeRequests.value.load(ordering: .relaxed) - door
        let pacedDuring = watched.tap.keyframeRequestsSent - paced
        let after = watched.pace(over: 2)

        print("keyframe flood: \(flood.sent.load(ordering: .relaxed)) RTCP packets in \(Self.floodSeconds) s; the viewer saw "
              + "\(hostile.keyframeRequests - asked) keyframe requests, \(pacedDuring) went to the door, which got \(doorDuring); dropped: "
              + "\(hostile.feedback.droppedSummary ?? "none"); the call \(Self.rates(before.callFrames, during.callFrames, after.callFrames)) "
              + "frames/s, the other viewer \(Self.rates(before.browserPackets[1], during.browserPackets[1], after.browserPackets[1])) "
              + "packets/s, the hostile one \(Self.rates(before.browserPackets[0], during.browserPackets[0], after.browserPackets[0])); "
              + "the main context at most \(Int(during.worstLateness * 1000)) ms late")
        XCTAssertGreaterThan(hostile.keyframeRequests - asked, 20, "the flood's requests reached the viewer")
        let pace = Int(Self.floodSeconds / 0.5) + 2
        XCTAssertLessThanOrEqual(pacedDuring, pace, "one request each 500 ms goes on to the door")
        XCTAssertGreaterThanOrEqual(pacedDuring, 2, "requests are sent paced, not dropped")
        XCTAssertLessThanOrEqual(doorDuring, pace + 3, "the door's encoder is asked at the call's pace (the call's own requests besides)")
        XCTAssertGreaterThan(hostile.feedback.count(.malformed), 0)
        XCTAssertGreaterThan(hostile.feedback.count(.flooding), 0)
        XCTAssertGreaterThan(during.callFrames, before.callFrames * 0.8, "the call shows the door's video at its pace")
        XCTAssertGreaterThan(during.browserPackets[1], before.browserPackets[1] * 0.8, "the other browser gets the call at its pace")
        XCTAssertLessThan(during.worstLateness, 0.2, "the main context stays free")
        XCTAssertGreaterThan(Double(during.ticks), during.seconds * 50, "the main context's 10 ms timer ran")
        XCTAssertGreaterThan(after.browserPackets[0], before.browserPackets[0] * 0.5, "the hostile browser's own video comes back after")
    }

    func testANackFloodNeitherGrowsTheAnswererNorMultipliesWhatTheViewerSends() throws {
        let watched = try WatchedCall(viewers: 2, retransmissions: true)
        defer { watched.stop() }
        let hostile = watched.viewers[0]
        let media = try watched.videoSSRC(ofViewer: 0)
        let payloader = try watched.videoPayloader(ofViewer: 0)
        let resender = try XCTUnwrap(hostile.webrtcElement.elements.first { $0.factoryName == "rtprtxsend" })
        let before = watched.pace(over: 2)
        let resident = WebRecordingStreamTests.residentBytes()
        let sequence = payloader[int: "seqnum"], resent = resender[int: "num-rtx-packets"]

        // A thousand a second: NACKs for the last 85 packets the viewer sent
        // (all still in its RTX history), and one in four a receiver report
        // from an SSRC never seen before.
        let latest = SendableElement(payloader)
        let flood = HostileRTCP.Flood(into: try watched.rtcpEntry(ofViewer: 0), perSecond: Self.packetsPerSecond) { index in
            guard index % 4 != 0 else { return HostileRTCP.receiverReportFromANewSSRC() }
            let last = UInt16(truncatingIfNeeded: latest.element[int: "seqnum"])
            return HostileRTCP.nack(media, from: last &- 84, count: 85)
        }
        let during = watched.pace(over: Self.floodSeconds)
        flood.stop()
        let grew = Double(WebRecordingStreamTests.residentBytes() - resident) / 1_048_576
        let videoPackets = Int(UInt16(truncatingIfNeeded: payloader[int: "seqnum"] - sequence))
        let retransmissions = resender[int: "num-rtx-packets"] - resent
        let after = watched.pace(over: 2)

        print("NACK flood: \(flood.sent.load(ordering: .relaxed)) RTCP packets in \(Self.floodSeconds) s; the viewer resent "
              + "\(retransmissions) packets beside its \(videoPackets); dropped: \(hostile.feedback.droppedSummary ?? "none"); "
              + "resident memory +\(String(format: "%.1f", grew)) MB; the call "
              + "\(Self.rates(before.callFrames, during.callFrames, after.callFrames)) frames/s, the other viewer "
              + "\(Self.rates(before.browserPackets[1], during.browserPackets[1], after.browserPackets[1])) packets/s; "
              + "the main context at most \(Int(during.worstLateness * 1000)) ms late")
        XCTAssertLessThan(grew, 30, "the answerer's memory stays flat (rtprtxsend queues what it is asked to resend)")
        XCTAssertLessThanOrEqual(retransmissions, videoPackets + 100 + 50, "no more resent than the video itself (and one history)")
        XCTAssertGreaterThan(retransmissions, 0, "NACKs within the budget are still answered")
        XCTAssertGreaterThan(hostile.feedback.count(.pastRetransmissionBudget), 0)
        XCTAssertGreaterThan(hostile.feedback.count(.unknownSSRC), 0)
        XCTAssertGreaterThan(during.callFrames, before.callFrames * 0.8, "the call shows the door's video at its pace")
        XCTAssertGreaterThan(during.browserPackets[1], before.browserPackets[1] * 0.8, "the other browser gets the call at its pace")
        XCTAssertLessThan(during.worstLateness, 0.2, "the main context stays free")
        XCTAssertGreaterThan(Double(during.ticks), during.seconds * 50, "the main context's 10 ms timer ran")
    }

    static func rates(_ values: Double...) -> String { values.map { String(format: "%.0f", $0) }.joined(separator: " → ") }
}

/// An element read from the flood's thread (its properties are thread-safe).
private final class SendableElement: @unchecked Sendable {
    let element: Element
    init(_ element: Element) { self.element = element }
}
