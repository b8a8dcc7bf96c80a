import XCTest
@testable import C1nkGLib

/// Real calls over loopback where something else happens meanwhile: a second
/// ring, a dying socket, a server error, a door that does not open.
final class CallHardeningTests: XCTestCase {
    private func dropAndRejoin(_ harness: CallHarness) {
        let connects = harness.count("connected")
        harness.server.dropAppConnections()
        waitUntil("reconnected") { harness.count("connected") == connects + 1 }
    }

    func testARingWhileBusyIsMissedAndLeavesTheCallItsOwnTimersAndCount() throws {
        let harness = try CallHarness { options in
            options.answerMode = .auto
            options.hangupAfter = 3
            options.exitAfterCalls = 1
        }
        defer { harness.stop() }
        harness.door.ring()
        waitUntil("accepted", timeout: 10) { harness.count("accepted") == 1 }
        let acceptedAt = MainContext.monotonicSeconds()
        let firstCall = try XCTUnwrap(harness.answerer.currentCallId)

        let otherDoor = try TestDoor(url: harness.server.url, name: "Zadný vchod", doorId: "back-door")
        let secondCall = try XCTUnwrap(otherDoor.ring())
        waitUntil("missed") { harness.count("missed") == 1 }
        let missed = try XCTUnwrap(harness.lastEvent("missed"))
        XCTAssertEqual(missed["callId"] as? String, secondCall)
        XCTAssertEqual(missed["reason"] as? String, "busy")
        XCTAssertEqual(missed["doorName"] as? String, "Zadný vchod")
        // Barriers: the server has read all we sent, and the other door all the server sent it.
        roundTrip(harness.client)
        otherDoor.roundTrip()
        XCTAssertFalse(otherDoor.received.contains { if case .leave = $0 { return true } else { return false } },
                       "no reject for a ring this device never joined: \(otherDoor.received)")
        XCTAssertTrue(harness.server.activeCallIds.contains(secondCall), "the other ring goes on for other residents")

        XCTAssertEqual(harness.answerer.currentCallId, firstCall)
        XCTAssertEqual(harness.answerer.endedCalls, 0)
        XCTAssertFalse(harness.answerer.isFinished, "a missed ring is not one of our calls")
        waitUntil("the first call ends on its own timer", timeout: 10) { harness.answerer.endedCalls == 1 }
        let ended = MainContext.monotonicSeconds()
        XCTAssertEqual(harness.lastEvent("ended")?["reason"] as? String, "hangup")
        XCTAssertEqual(harness.lastEvent("ended")?["callId"] as? String, firstCall)
        XCTAssertGreaterThan(ended - acceptedAt, 2.5, "--hangup-after counts from this call's accept")
        XCTAssertTrue(harness.answerer.isFinished)
        XCTAssertEqual(harness.count("ended"), 1, "the missed ring has no ended")
    }

    func testARejoinAnsweredWithAnErrorEndsTheCallLost() throws {
        let harness = try CallHarness { $0.answerMode = .auto }
        defer { harness.stop() }
        harness.door.ring()
        waitUntil("the call to flow", timeout: 10) { harness.count("accepted") == 1 && harness.count("media-connected") == 1 }
        let callId = try XCTUnwrap(harness.answerer.currentCallId)
        // The server loses the call (a restart): our rejoin gets `error`.
        harness.server.forgetCall(callId)
        dropAndRejoin(harness)
        waitUntil("ended", timeout: 10) { harness.count("ended") == 1 }
        XCTAssertEqual(harness.lastEvent("ended")?["reason"] as? String, "lost")
        XCTAssertEqual(harness.lastEvent("error")?["callId"] as? String, callId, "the server's error names the call")
        XCTAssertNil(harness.answerer.currentSession)
    }

    func testAServerErrorForOurCallEndsItAfterTheGraceUnlessMediaFlows() throws {
        let harness = try CallHarness { options in
            options.serverErrorGrace = 0.5
            options.connectTimeout = 30
        }
        defer { harness.stop() }
        // A door that never offers media: nothing flows.
        let mute = try TestDoor(url: harness.server.url, name: "Zadný vchod", doorId: "mute-door")
        let callId = try XCTUnwrap(mute.ring())
        waitUntil("ringing") { harness.count("ringing") == 1 }
        harness.server.sendRawToApps(#"{"type":"error","message":"media server gone","callId":"\#(callId)"}"#)
        waitUntil("ended after the grace", timeout: 5) { harness.count("ended") == 1 }
        XCTAssertEqual(harness.lastEvent("ended")?["reason"] as? String, "server-error")
        XCTAssertEqual(harness.lastEvent("error")?["callId"] as? String, callId)

        // With media flowing the call goes on.
        harness.door.ring()
        waitUntil("the call to flow", timeout: 10) { harness.count("media-connected") == 1 }
        let flowing = try XCTUnwrap(harness.answerer.currentCallId)
        harness.server.sendRawToApps(#"{"type":"error","message":"media server gone","callId":"\#(flowing)"}"#)
        waitUntil("reported") { harness.count("error") == 2 }
        XCTAssertFalse(harness.answerer.runningTimers.contains(.serverErrorGrace), "no grace period while media flows")
        XCTAssertEqual(harness.count("ended"), 1)
        XCTAssertEqual(harness.answerer.currentCallId, flowing)
    }

    func testOpenDoorIsRefusedBeforeAcceptAndReportedWhenItFails() throws {
        let harness = try CallHarness { $0.doorOpenTimeout = 0.5 }
        defer { harness.stop() }
        harness.door.ring()
        waitUntil("media while ringing", timeout: 10) { harness.count("first-frame") == 1 }
        let refusal = try XCTUnwrap(harness.answerer.command("open"))
        XCTAssertTrue(refusal.contains("accept"), refusal)
        roundTrip(harness.client)
        XCTAssertFalse(harness.door.doorOpened, "no open-door before accept")

        XCTAssertNil(harness.answerer.command("accept"))
        waitUntil("accepted") { harness.count("accepted") == 1 }
        // A door that does not answer: door-open-failed, and the call goes on.
        harness.server.forwardsOpenDoor = false
        XCTAssertNil(harness.answerer.command("open"))
        waitUntil("door-open-failed") { harness.count("door-open-failed") == 1 }
        XCTAssertEqual(harness.lastEvent("door-open-failed")?["reason"] as? String, "no-reply")
        XCTAssertEqual(harness.count("ended"), 0)

        // The socket down: not queued for later, the user is told at once.
        harness.server.forwardsOpenDoor = true
        harness.server.stop()
        waitUntil("disconnected") { harness.count("disconnected") == 1 }
        let offline = try XCTUnwrap(harness.answerer.command("open"))
        XCTAssertTrue(offline.contains("not connected"), offline)
        XCTAssertEqual(harness.count("door-open-failed"), 2)
        XCTAssertEqual(harness.lastEvent("door-open-failed")?["reason"] as? String, "not-connected")
        XCTAssertEqual(harness.client.queuedCount, 0, "nothing waits to open the door minutes later")
        XCTAssertNotNil(harness.answerer.currentSession, "the call goes on")
    }
}
