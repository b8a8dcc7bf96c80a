import XCTest
@testable import C1nkGLib

/// Real calls over loopback where something else happens meanwhile: a second
/// ring, a dying socket, a server error, a door that does not open. Where a
/// test is about the answerer's timers they run on a `ManualClock`: the media
/// and sockets are real, and time moves for the timers when the test says.
final class CallHardeningTests: XCTestCase {
    private func dropAndRejoin(_ harness: CallHarness) {
        let connects = harness.count("connected")
        harness.server.dropAppConnections()
        waitUntil("reconnected") { harness.count("connected") == connects + 1 }
    }

    func testARingWhileBusyIsMissedAndLeavesTheCallItsOwnTimersAndCount() throws {
        let clock = ManualClock()
        let harness = try CallHarness(clock: clock) { options in
            options.answerMode = .auto
            options.hangupAfter = 3
            options.exitAfterCalls = 1
        }
        defer { harness.stop() }
        harness.door.ring()
        waitUntil("ringing") { harness.count("ringing") == 1 }
        clock.advance(by: 0) // the automatic accept's zero delay
        waitUntil("accepted", timeout: 10) { harness.count("accepted") == 1 }
        let firstCall = try XCTUnwrap(harness.answerer.currentCallId)
        clock.advance(by: 1)

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
        clock.advance(by: 1.9)
        XCTAssertEqual(harness.answerer.endedCalls, 0, "--hangup-after counts from this call's accept")
        clock.advance(by: 0.1)
        XCTAssertEqual(harness.answerer.endedCalls, 1, "the first call ends on its own timer")
        XCTAssertEqual(harness.lastEvent("ended")?["reason"] as? String, "hangup")
        XCTAssertEqual(harness.lastEvent("ended")?["callId"] as? String, firstCall)
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
        let clock = ManualClock()
        let harness = try CallHarness(clock: clock) { options in
            options.serverErrorGrace = 0.5
            options.connectTimeout = 30
        }
        defer { harness.stop() }
        // A door that never offers media: nothing flows.
        let mute = try TestDoor(url: harness.server.url, name: "Zadný vchod", doorId: "mute-door")
        let callId = try XCTUnwrap(mute.ring())
        waitUntil("ringing") { harness.count("ringing") == 1 }
        harness.server.sendRawToApps(#"{"type":"error","message":"media server gone","callId":"\#(callId)"}"#)
        waitUntil("the server's error") { harness.count("error") == 1 }
        clock.advance(by: 0.4)
        XCTAssertEqual(harness.count("ended"), 0, "not before the grace")
        clock.advance(by: 0.1)
        XCTAssertEqual(harness.count("ended"), 1, "ended after the grace")
        XCTAssertEqual(harness.lastEvent("ended")?["reason"] as? String, "server-error")
        XCTAssertEqual(harness.lastEvent("error")?["callId"] as? String, callId)

        // With media flowing the call goes on.
        harness.door.ring()
        waitUntil("the call to flow", timeout: 10) { harness.count("media-connected") == 1 }
        let flowing = try XCTUnwrap(harness.answerer.currentCallId)
        harness.server.sendRawToApps(#"{"type":"error","message":"media server gone","callId":"\#(flowing)"}"#)
        waitUntil("reported") { harness.count("error") == 2 }
        XCTAssertFalse(harness.answerer.runningTimers.contains(.serverErrorGrace), "no grace period while media flows")
        clock.advance(by: 1)
        XCTAssertEqual(harness.count("ended"), 1)
        XCTAssertEqual(harness.answerer.currentCallId, flowing)
    }

    func testOpenDoorIsRefusedBeforeAcceptAndReportedWhenItFails() throws {
        let clock = ManualClock()
        let harness = try CallHarness(clock: clock) { $0.doorOpenTimeout = 0.5 }
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
        roundTrip(harness.client) // the server has the open-door, and keeps it from the door
        clock.advance(by: 0.4)
        XCTAssertEqual(harness.count("door-open-failed"), 0, "not before the door-open timeout")
        clock.advance(by: 0.1)
        XCTAssertEqual(harness.count("door-open-failed"), 1)
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
