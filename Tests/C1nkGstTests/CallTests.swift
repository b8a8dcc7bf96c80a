import XCTest
@testable import C1nkDoor
@testable import C1nkGLib
@testable import C1nkMedia

/// Real calls over loopback between the simulated door and the answerer.
final class CallTests: XCTestCase {
    func testAnsweredCallPreviewsVideoKeepsAudioClosedUntilAcceptAndOpensTheDoor() throws {
        let harness = try CallHarness { options in
            options.answerMode = .auto
            options.answerDelay = 1.5 // media flows first: the preview before pick-up
            options.openDoorAfter = 1
            options.hangupAfter = 2.5
        }
        defer { harness.stop() }
        harness.door.ring()
        waitUntil("the call to end", timeout: 20) { harness.answerer.endedCalls == 1 }

        let figures = harness.answerer.lastCall
        XCTAssertGreaterThan(figures.framesRendered, 36, "video decoded during preview and call")
        let acceptedAt = try XCTUnwrap(harness.door.acceptedAt)
        XCTAssertNotNil(figures.mediaConnectedAt)
        XCTAssertLessThan(figures.mediaConnectedAt!, acceptedAt, "media connected while ringing")
        // The door hears nothing until the resident accepts, then the resident's voice.
        XCTAssertLessThan(harness.door.loudestHeard(until: acceptedAt), -60)
        XCTAssertGreaterThan(harness.door.loudestHeard(since: acceptedAt + 0.3), -30)
        // The resident hears nothing of the door until the accept, then the door.
        XCTAssertLessThan(figures.speakerPeakWhileGated, -60)
        XCTAssertGreaterThan(figures.speakerPeakWhileEnabled, -30)
        XCTAssertTrue(harness.door.doorOpened)
        XCTAssertEqual(harness.callEvents(), ["ringing", "media-connected", "first-frame", "decoder", "accepted", "door-opened", "ended"])
        XCTAssertEqual(harness.lastEvent("ended")?["reason"] as? String, "hangup")
        XCTAssertEqual(harness.lastEvent("ringing")?["doorName"] as? String, "Hlavný vchod")
        waitUntil("the door to see the hangup") { harness.doorEvents.contains(.callEnded(reason: "hangup")) }
    }

    func callWithCodec(_ codec: DoorMediaSession.VideoCodec) throws {
        let harness = try CallHarness(codec: codec) { options in
            options.answerMode = .auto
            options.hangupAfter = 2
        }
        defer { harness.stop() }
        harness.door.ring()
        waitUntil("the call to end", timeout: 20) { harness.answerer.endedCalls == 1 }
        XCTAssertGreaterThan(harness.answerer.lastCall.framesRendered, 36, "\(codec) frames decoded")
        XCTAssertEqual(harness.lastEvent("ended")?["reason"] as? String, "hangup")
    }

    func testH264Call() throws { try callWithCodec(.h264) }
    func testVP8Call() throws { try callWithCodec(.vp8) }

    func testRejectBeforeAccept() throws {
        let harness = try CallHarness()
        defer { harness.stop() }
        harness.door.ring()
        waitUntil("media while ringing", timeout: 10) { harness.count("first-frame") == 1 }
        XCTAssertNil(harness.answerer.command("r"))
        waitUntil("the door to hear the reject") { harness.doorEvents.contains(.callEnded(reason: "rejected")) }
        XCTAssertEqual(harness.lastEvent("ended")?["reason"] as? String, "rejected")
        XCTAssertEqual(harness.count("accepted"), 0)
        XCTAssertNil(harness.answerer.currentSession, "media torn down")
    }

    func testDoorHangsUpWhileRinging() throws {
        let harness = try CallHarness()
        defer { harness.stop() }
        harness.door.ring()
        waitUntil("ringing") { harness.count("ringing") == 1 }
        harness.door.hangup()
        waitUntil("ended") { harness.count("ended") == 1 }
        let ended = try XCTUnwrap(harness.lastEvent("ended"))
        XCTAssertEqual(ended["reason"] as? String, "remote")
        XCTAssertEqual(ended["serverReason"] as? String, "door-hangup")
        XCTAssertNil(harness.answerer.currentSession)
    }

    func testDuplicateRingIsIgnored() throws {
        let harness = try CallHarness()
        defer { harness.stop() }
        harness.door.ring()
        waitUntil("ringing") { harness.count("ringing") == 1 }
        let callId = try XCTUnwrap(harness.door.callId)
        harness.server.sendRawToApps(#"{"type":"incoming","callId":"\#(callId)","doorName":"Hlavný vchod"}"#)
        roundTrip(harness.client) // the server's frame arrived before our pong
        XCTAssertEqual(harness.count("ringing"), 1)
        XCTAssertEqual(harness.answerer.currentCallId, callId)
        XCTAssertNil(harness.answerer.command("hangup"))
        waitUntil("ended") { harness.count("ended") == 1 }
        // The same callId again after the call ended is still the same call: ignored.
        harness.server.sendRawToApps(#"{"type":"incoming","callId":"\#(callId)","doorName":"Hlavný vchod"}"#)
        roundTrip(harness.client)
        XCTAssertEqual(harness.count("ringing"), 1)
    }

    func testNoOfferEndsWithNoConnection() throws {
        let harness = try CallHarness { $0.connectTimeout = 1 }
        defer { harness.stop() }
        // A door that rings but never offers media.
        let mute = try TestDoor(url: harness.server.url, name: "Zadný vchod")
        let callId = try XCTUnwrap(mute.ring())
        waitUntil("ended", timeout: 5) { harness.count("ended") == 1 }
        XCTAssertEqual(harness.lastEvent("ended")?["reason"] as? String, "no-connection")
        XCTAssertEqual(harness.lastEvent("ended")?["callId"] as? String, callId)
        waitUntil("the door to learn the app left") {
            mute.received.contains { if case .leave(callId, _, "rejected") = $0 { return true } else { return false } }
        }
    }

    func testSocketDropMidCallRejoinsTheSameCallWhileMediaFlows() throws {
        let harness = try CallHarness { $0.answerMode = .auto }
        defer { harness.stop() }
        harness.door.ring()
        waitUntil("the call to flow", timeout: 10) { (harness.answerer.currentSession?.framesRendered ?? 0) > 15 }
        let callId = try XCTUnwrap(harness.answerer.currentCallId)
        let session = try XCTUnwrap(harness.answerer.currentSession)
        let framesBefore = session.framesRendered

        harness.server.dropAppConnections()
        waitUntil("disconnected") { harness.count("disconnected") == 1 }
        waitUntil("reconnected") { harness.count("connected") == 2 }
        waitUntil("media keeps flowing") { session.framesRendered > framesBefore + 15 }
        roundTrip(harness.client) // the rejoin's join-ok is in
        XCTAssertTrue(harness.answerer.currentSession === session, "the same media session goes on")
        XCTAssertEqual(harness.answerer.currentCallId, callId)
        XCTAssertEqual(harness.count("ended"), 0)
        XCTAssertTrue(harness.server.activeCallIds.contains(callId), "rejoined the same call")
        // The call is still fully usable: open the door over the new socket.
        XCTAssertNil(harness.answerer.command("open"))
        waitUntil("door-opened") { harness.count("door-opened") == 1 }
    }

    func testReofferForTheSameCallStartsAFreshSessionAndMediaResumes() throws {
        let harness = try CallHarness { $0.answerMode = .auto }
        defer { harness.stop() }
        harness.door.ring()
        waitUntil("the call to flow", timeout: 10) { (harness.answerer.currentSession?.framesRendered ?? 0) > 15 }
        let first = try XCTUnwrap(harness.answerer.currentSession)
        let acceptedAt = MainContext.monotonicSeconds()

        harness.door.restartMedia()
        waitUntil("a new session", timeout: 5) { harness.answerer.currentSession !== first }
        waitUntil("media resumes", timeout: 5) { (harness.answerer.currentSession?.framesRendered ?? 0) > 15 }
        XCTAssertEqual(harness.count("media-connected"), 2)
        XCTAssertEqual(harness.count("ended"), 0)
        XCTAssertTrue(harness.answerer.currentSession!.audioEnabled, "still accepted: audio stays on")
        waitUntil("the door hears the resident again") { harness.door.loudestHeard(since: acceptedAt + 0.5) > -30 }
    }

    func testAnotherDeviceAnsweringFirstEndsOurRinging() throws {
        let harness = try CallHarness(answerers: 2)
        defer { harness.stop() }
        harness.door.ring()
        waitUntil("both ring") { harness.count("ringing", 0) == 1 && harness.count("ringing", 1) == 1 }
        waitUntil("both answered", timeout: 10) { harness.door.acceptedAt == nil && harness.count("media-connected", 1) == 1 }
        XCTAssertNil(harness.answerers[1].answerer.command("accept"))
        waitUntil("the first device stops ringing") { harness.count("ended", 0) == 1 }
        XCTAssertEqual(harness.lastEvent("ended", 0)?["reason"] as? String, "answered-elsewhere")
        XCTAssertEqual(harness.count("accepted", 1), 1)
        XCTAssertNil(harness.answerers[0].answerer.currentSession)
    }
}
