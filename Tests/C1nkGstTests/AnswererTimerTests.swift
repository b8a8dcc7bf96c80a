import XCTest
@testable import C1nkAnswerer
@testable import C1nkCall
@testable import C1nkGLib
@testable import C1nkProtocol
@testable import C1nkSignaling

/// The answerer's timers on a manual clock: each one fires when its time
/// comes and not a moment before, for the call it was started for only.
/// A `ScriptedAnswerer`: in-memory signaller, scripted media; no sleeps.
final class AnswererTimerTests: XCTestCase {
    private let door = "Hlavný vchod"
    private var harness: ScriptedAnswerer!
    private var signaller: InMemorySignaller { harness.signaller }
    private var media: ScriptedCallMedia.Factory { harness.media }
    private var events: EventLog { harness.events }
    private var clock: ManualClock { harness.clock }
    private var answerer: Answerer { harness.answerer }

    override func setUp() {
        Log.echoToStandardError = false
        makeAnswerer()
    }

    override func tearDown() {
        harness = nil
        Log.echoToStandardError = true
    }

    private func makeAnswerer(_ configure: (inout Answerer.Options) -> Void = { _ in }) {
        harness = ScriptedAnswerer(configure)
    }

    private func last(_ kind: CallEvent.Kind) -> CallEvent? { harness.last(kind) }
    private func count(_ kind: CallEvent.Kind) -> Int { harness.count(kind) }

    @discardableResult
    private func ringWithMedia(_ callId: String = "c1") throws -> ScriptedCallMedia {
        try harness.ringWithMedia(callId, door: door)
    }

    @discardableResult
    private func connectedCall(_ callId: String = "c1") throws -> ScriptedCallMedia {
        let session = try ringWithMedia(callId)
        XCTAssertNil(answerer.command("accept"))
        session.connect()
        return session
    }

    func testNoConnectionAfterTheRingEndsTheCallAtTheConnectTimeout() throws {
        try ringWithMedia()
        XCTAssertEqual(answerer.runningTimers, [.connect])
        clock.advance(by: 9.9)
        XCTAssertNil(last(.ended))
        clock.advance(by: 0.1)
        XCTAssertEqual(signaller.sent.last, .reject(callId: "c1"))
        XCTAssertEqual(last(.ended), .ended(callId: "c1", reason: .noConnection, doorName: door, frames: 0))
        XCTAssertTrue(answerer.runningTimers.isEmpty)
        XCTAssertEqual(clock.pendingCount, 0, "nothing of the call is left to fire")
    }

    func testMediaLostMidCallEndsItLostUnlessItComesBack() throws {
        let session = try connectedCall()
        XCTAssertFalse(answerer.runningTimers.contains(.connect), "connected: no connect timer")
        session.onDisconnected?()
        clock.advance(by: 5)
        session.connect()
        XCTAssertFalse(answerer.runningTimers.contains(.connect), "back in time: the timer stops")
        clock.advance(by: 60)
        XCTAssertNil(last(.ended))

        session.onDisconnected?()
        clock.advance(by: 9.9)
        XCTAssertNil(last(.ended))
        clock.advance(by: 0.1)
        XCTAssertEqual(signaller.sent.last, .hangup(callId: "c1"))
        XCTAssertEqual(last(.ended), .ended(callId: "c1", reason: .lost, doorName: door, frames: 0))
    }

    func testARejoinWithoutJoinOkEndsTheCallLostAtTheRejoinTimeout() throws {
        try connectedCall()
        signaller.drop()
        signaller.connect()
        XCTAssertTrue(answerer.runningTimers.contains(.rejoin))
        clock.advance(by: 9.9)
        XCTAssertNil(last(.ended))
        clock.advance(by: 0.1)
        XCTAssertEqual(signaller.sent.last, .hangup(callId: "c1"))
        XCTAssertEqual(last(.ended), .ended(callId: "c1", reason: .lost, doorName: door, frames: 0))
    }

    func testAnOpenDoorWithoutReplyFailsAtTheDoorOpenTimeoutAndTheCallGoesOn() throws {
        try connectedCall()
        XCTAssertNil(answerer.command("open"))
        clock.advance(by: 4.9)
        XCTAssertNil(last(.doorOpenFailed))
        clock.advance(by: 0.1)
        XCTAssertEqual(last(.doorOpenFailed), .doorOpenFailed(callId: "c1", reason: .noReply))
        XCTAssertEqual(answerer.currentCallId, "c1")
        XCTAssertNil(answerer.command("open"), "the user may try again")
        XCTAssertEqual(signaller.sent.filter { $0 == .openDoor(callId: "c1") }.count, 2)
        signaller.receive(.doorOpenOk(callId: "c1"))
        clock.advance(by: 60)
        XCTAssertEqual(count(.doorOpenFailed), 1, "a door that opened in time is not reported failed")
    }

    func testAServerErrorEndsACallWithoutMediaAfterTheGraceAndSparesAFlowingOne() throws {
        try ringWithMedia()
        signaller.receive(.error(message: "media server gone", callId: "c1"))
        clock.advance(by: 4.9)
        XCTAssertNil(last(.ended))
        clock.advance(by: 0.1)
        XCTAssertEqual(signaller.sent.last, .reject(callId: "c1"))
        XCTAssertEqual(last(.ended), .ended(callId: "c1", reason: .serverError, doorName: door, frames: 0))

        try connectedCall("c2")
        signaller.receive(.error(message: "media server gone", callId: "c2"))
        XCTAssertFalse(answerer.runningTimers.contains(.serverErrorGrace), "no grace period while media flows")
        clock.advance(by: 60)
        XCTAssertEqual(answerer.currentCallId, "c2")
        XCTAssertEqual(count(.ended), 1)
    }

    func testScriptedOpenAndHangUpCountFromThisCallsAccept() throws {
        makeAnswerer { options in
            options.openDoorAfter = 1
            options.hangupAfter = 3
        }
        let session = try ringWithMedia()
        clock.advance(by: 5)
        XCTAssertNil(answerer.command("accept"))
        session.connect()
        clock.advance(by: 0.9)
        XCTAssertFalse(signaller.sent.contains(.openDoor(callId: "c1")))
        clock.advance(by: 0.1)
        XCTAssertEqual(signaller.sent.last, .openDoor(callId: "c1"))
        // A ring while busy moves none of this call's timers.
        signaller.receive(.incoming(callId: "c2", doorName: "Dvor"))
        XCTAssertEqual(last(.missed), .missed(callId: "c2", doorName: "Dvor", reason: "busy"))
        clock.advance(by: 1.9)
        XCTAssertNil(last(.ended))
        clock.advance(by: 0.1)
        XCTAssertEqual(last(.ended), .ended(callId: "c1", reason: .hangup, doorName: door, frames: 0))
        XCTAssertEqual(answerer.lastCall.acceptedAt, 5)
    }

    func testAScriptingTimerActsOnlyOnTheCallItWasStartedFor() throws {
        makeAnswerer { $0.hangupAfter = 3 }
        try connectedCall("c1")
        clock.advance(by: 1)
        signaller.receive(.callEnd(callId: "c1", reason: "door-hangup"))
        try connectedCall("c2")
        // Past the first call's hang-up time: the second call's own is three seconds from its accept.
        clock.advance(by: 2.5)
        XCTAssertEqual(answerer.currentCallId, "c2", "the first call's hang-up does not end the second")
        clock.advance(by: 0.4)
        XCTAssertEqual(answerer.currentCallId, "c2")
        clock.advance(by: 0.1)
        XCTAssertEqual(last(.ended), .ended(callId: "c2", reason: .hangup, doorName: door, frames: 0))
    }

    func testLevelsEveryIntervalWhileAcceptedAndNotAfter() throws {
        try ringWithMedia()
        clock.advance(by: 3)
        XCTAssertEqual(count(.levels), 0, "no levels before accept")
        XCTAssertNil(answerer.command("accept"))
        clock.advance(by: 0.9)
        XCTAssertEqual(count(.levels), 0)
        clock.advance(by: 0.1)
        XCTAssertEqual(last(.levels), .levels(callId: "c1", door: -100, resident: -100, muted: false))
        clock.advance(by: 2)
        XCTAssertEqual(count(.levels), 3)
        XCTAssertNil(answerer.command("hangup"))
        clock.advance(by: 5)
        XCTAssertEqual(count(.levels), 3, "the levels stop with the call")
    }

    func testTheCallsFiguresAreOnTheAnswerersClock() throws {
        let session = try ringWithMedia()
        clock.advance(by: 2.5)
        session.connect()
        clock.advance(by: 0.25)
        session.firstFrame()
        XCTAssertEqual(last(.mediaConnected), .mediaConnected(callId: "c1", sinceRingMs: 2500))
        XCTAssertEqual(last(.firstFrame), .firstFrame(callId: "c1", sinceRingMs: 2750))
        XCTAssertEqual(answerer.lastCall.ringAt, 0)
        XCTAssertEqual(answerer.lastCall.ringToMediaConnected, 2.5)
        XCTAssertEqual(answerer.lastCall.ringToFirstFrame, 2.75)
    }
    func testAFrozenPictureIsReportedOnceAndSoIsItsReturn() throws {
        let session = try connectedCall()
        clock.advance(by: 3)
        XCTAssertEqual(count(.videoStalled), 0, "nothing is watched before the first frame")
        session.framesRendered = 1
        session.firstFrame()
        for _ in 0..<8 {
            session.framesRendered += 8
            clock.advance(by: VideoStallWatch.checkInterval)
        }
        clock.advance(by: 0.75)
        XCTAssertEqual(count(.videoStalled), 0, "not before a second without a frame")
        clock.advance(by: 0.25)
        XCTAssertEqual(last(.videoStalled), .videoStalled(callId: "c1"))
        clock.advance(by: 3)
        XCTAssertEqual(count(.videoStalled), 1, "once per stall")
        XCTAssertNil(last(.videoResumed))
        session.framesRendered += 1
        clock.advance(by: 0.25)
        XCTAssertEqual(last(.videoResumed), .videoResumed(callId: "c1", stalledMs: 4250), "since the last frame before it")
        XCTAssertNil(last(.ended), "the call goes on")
        XCTAssertNil(answerer.command("hangup"))
        clock.advance(by: 5)
        XCTAssertEqual(count(.videoStalled), 1, "the watch ends with the call")
        XCTAssertEqual(clock.pendingCount, 0)
    }
}
