import XCTest
@testable import C1nkAnswerer
@testable import C1nkDoor
@testable import C1nkGLib
@testable import C1nkLocal
@testable import C1nkMedia

/// The simulated door behind a home router's narrow uplink (a drop-tail
/// queue in a relay on loopback), following the answerer's transport-wide
/// congestion feedback with its encoder.
final class UplinkTests: XCTestCase {
    /// webrtcbin 1.22 would answer `transport-cc` without the header
    /// extension that carries it; the answer must echo the door's.
    func testTheAnswerEchoesTheTransportWideCCExtension() throws {
        var doorOptions = DoorMediaSession.Options()
        doorOptions.ice = .loopback
        doorOptions.adaptsToFeedback = true
        let door = try DoorMediaSession(options: doorOptions)
        defer { door.stop() }
        var offer: String?
        var answer: String?
        var session: AnswerSession?
        door.onOffer = { sdp in
            offer = sdp
            session = try? AnswerSession(callId: "c", offer: sdp, configuration: MediaSessionTests.testConfiguration(), audioEnabled: false)
            session?.onAnswer = { answer = $0 }
        }
        waitUntil("the answer") { answer != nil }
        session?.stop()
        let extmap = "a=extmap:\(DoorRateAdaptation.extensionId) \(OfferSummary.transportWideCCURI)"
        XCTAssertTrue(offer?.contains(extmap) ?? false, offer ?? "no offer")
        XCTAssertTrue(answer?.contains(extmap) ?? false, answer ?? "no answer")
        XCTAssertTrue(answer?.contains("transport-cc") ?? false)
    }

    /// Behind a queue a repair takes the queue's delay too: the video's
    /// window follows the measured round trip of its repairs.
    func testTheRepairWindowFollowsTheRepairRoundTrip() {
        XCTAssertEqual(RepairWindow.milliseconds(forRepairRoundTrip: 10, configured: 100), 100, "a LAN keeps the configured window")
        XCTAssertEqual(RepairWindow.milliseconds(forRepairRoundTrip: 200, configured: 100), 333)
        XCTAssertEqual(RepairWindow.milliseconds(forRepairRoundTrip: 1000, configured: 100), RepairWindow.maximumMilliseconds)
        XCTAssertEqual(RepairWindow.milliseconds(forRepairRoundTrip: 0, configured: 100), 100)
        XCTAssertEqual(RepairWindow.milliseconds(forRepairRoundTrip: 300, configured: 600), 600, "never below what the user asked for")
    }

    /// A measured 10 s call from an adapting door behind `network`: the
    /// answerer's figures and the encoder's targets as the feedback moved them.
    private func adaptingCall(_ network: (inout NetworkImpairment) -> Void) throws
        -> (figures: [String: Any], rates: [(time: Double, kbps: Int)], uplink: UplinkBottleneck?, ended: String?) {
        let harness = try CallHarness(door: { door in
            door.stampTime = true
            door.adaptsToFeedback = true
            network(&door.network)
        }) { options in
            options.answerMode = .auto
            options.hangupAfter = 10
            options.media.measure = true
            options.media.videoSink = "fakesink qos=true max-lateness=20000000"
        }
        defer { harness.stop() }
        harness.door.ring()
        var rates: [(time: Double, kbps: Int)] = []
        waitUntil("measurements", timeout: 30) {
            if !harness.door.encoderRates.isEmpty { rates = harness.door.encoderRates }
            return harness.count("measurements") == 1
        }
        let figures = try XCTUnwrap(harness.lastEvent("measurements"))
        return (figures, rates, harness.door.uplink, harness.lastEvent("ended")?["reason"] as? String)
    }

    func testDoorAdaptsToA600KbitUplink() throws {
        let (figures, rates, uplink, _) = try adaptingCall { network in
            network.uplinkKbps = 600
            network.uplinkQueueMilliseconds = 200
        }
        let intact = figures["framesIntact"] as? Int ?? 0
        let sent = figures["framesSent"] as? Int ?? 0
        let router = try XCTUnwrap(uplink)
        print("600 kbit/s uplink: \(intact)/\(sent) intact, longest freeze \(figures["longestFreezeMs"] ?? "?") ms, "
              + "glass-to-glass \(figures["glassToGlassMs"] ?? "?"), encoder kbit/s \(rates.map(\.kbps)), "
              + "\(router.dropped) of \(router.forwarded + router.dropped) packets dropped at the router")
        XCTAssertGreaterThan(sent, 200)
        XCTAssertGreaterThanOrEqual(Double(intact) / Double(max(1, sent)), 0.9)
        XCTAssertGreaterThan(rates.count, 2, "the encoder followed the feedback")
        let settled = rates.filter { $0.time > rates[0].time + 3 }.map(\.kbps)
        XCTAssertFalse(settled.isEmpty)
        XCTAssertLessThan(Double(settled.reduce(0, +)) / Double(max(1, settled.count)), 600, "it settles under the uplink")
    }

    /// Every packet lost for 2 s (a router rebooting): the call goes on, the
    /// door halves its rate while no feedback comes, and the picture returns.
    func testAfterATwoSecondBlackoutThePictureReturns() throws {
        let (figures, rates, _, ended) = try adaptingCall { network in
            network.uplinkKbps = 1000
            network.outageAt = 3
            network.outageMilliseconds = 2000
        }
        let intact = figures["framesIntact"] as? Int ?? 0
        let sent = figures["framesSent"] as? Int ?? 0
        let freeze = figures["longestFreezeMs"] as? Double ?? 0
        print("2 s blackout: \(intact)/\(sent) intact, longest freeze \(freeze) ms, encoder kbit/s \(rates.map(\.kbps))")
        XCTAssertEqual(ended, "hangup", "the call went on to its end")
        XCTAssertGreaterThanOrEqual(freeze, 1500, "the blackout froze the picture")
        XCTAssertLessThan(freeze, 2000 + 2500, "and it came back")
        XCTAssertGreaterThan(Double(intact) / Double(max(1, sent)), 0.6)
    }
}
