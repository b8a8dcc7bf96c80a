import XCTest
@testable import C1nkAnswerer
@testable import C1nkCall
@testable import C1nkGLib
@testable import C1nkProtocol
@testable import C1nkSignaling

/// The answerer's call flow against an in-memory signaller, scripted media
/// and a manual clock: no socket, no webrtcbin, no sleeps. Each step is
/// delivered and its effects read back at once; time moves only when the
/// test advances the clock.
final class AnswererFlowTests: XCTestCase {
    private let door = "Hlavný vchod"
    private let candidate = IceCandidate(candidate: "candidate:1 1 UDP 2122260223 127.0.0.1 50000 typ host",
                                         sdpMid: "0", sdpMLineIndex: 0)
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

    private var kinds: [CallEvent.Kind] { harness.kinds }
    private func last(_ kind: CallEvent.Kind) -> CallEvent? { harness.last(kind) }

    /// Rings `callId`, takes the door's offer and sends our answer: the call is ringing with media.
    @discardableResult
    private func ringWithMedia(_ callId: String = "c1") throws -> ScriptedCallMedia {
        try harness.ringWithMedia(callId, door: door)
    }

    private func acceptedCall(_ callId: String = "c1") throws -> ScriptedCallMedia {
        let session = try ringWithMedia(callId)
        XCTAssertNil(answerer.command("accept"))
        session.connect()
        return session
    }

    func testRingAcceptOpenHangUp() throws {
        XCTAssertTrue(signaller.isStarted)
        XCTAssertEqual(events.events.map(\.event), [.connected(server: "memory://c1nk"), .registered(deviceId: "device-1")])

        signaller.receive(.incoming(callId: "c1", doorName: door))
        XCTAssertEqual(last(.ringing), .ringing(callId: "c1", doorName: door))
        XCTAssertEqual(signaller.sent, [.join(callId: "c1")], "ringing first, then join")
        XCTAssertEqual(answerer.currentCallId, "c1")

        signaller.receive(.joinOk(callId: "c1"))
        signaller.receive(.offer(callId: "c1", sdp: "v=0 offer"))
        let session = try XCTUnwrap(media.latest)
        XCTAssertEqual(session.offer, "v=0 offer")
        XCTAssertFalse(session.audioEnabled, "no audio before accept")

        // An accept before our answer is out waits for it.
        XCTAssertNil(answerer.command("a"))
        XCTAssertFalse(signaller.sent.contains(.accept(callId: "c1")))
        session.answer("v=0 answer")
        XCTAssertEqual(signaller.sent.suffix(2), [.sendAnswer(callId: "c1", sdp: "v=0 answer"), .accept(callId: "c1")])
        XCTAssertTrue(session.audioEnabled)
        XCTAssertEqual(last(.accepted), .accepted(callId: "c1"))

        session.onLocalCandidate?(candidate)
        XCTAssertEqual(signaller.sent.last, .sendCandidate(callId: "c1", candidate: candidate))
        signaller.receive(.ice(callId: "c1", candidate: candidate))
        XCTAssertEqual(session.remoteCandidates, [candidate])

        session.connect()
        session.firstFrame()
        guard case .mediaConnected("c1", let sinceRing?) = last(.mediaConnected) else {
            return XCTFail("media-connected with the time since the ring: \(events.events)")
        }
        XCTAssertGreaterThanOrEqual(sinceRing, 0)
        guard case .firstFrame("c1", _?) = last(.firstFrame) else { return XCTFail("first-frame: \(events.events)") }

        XCTAssertNil(answerer.command("open"))
        XCTAssertEqual(signaller.sent.last, .openDoor(callId: "c1"))
        XCTAssertTrue(answerer.runningTimers.contains(.doorOpen))
        signaller.receive(.doorOpenOk(callId: "c1"))
        XCTAssertEqual(last(.doorOpened), .doorOpened(callId: "c1"))
        XCTAssertFalse(answerer.runningTimers.contains(.doorOpen))

        session.framesRendered = 42
        XCTAssertNil(answerer.command("hangup"))
        XCTAssertEqual(signaller.sent.last, .hangup(callId: "c1"))
        XCTAssertEqual(last(.ended), .ended(callId: "c1", reason: .hangup, doorName: door, frames: 42))
        XCTAssertTrue(session.finished)
        XCTAssertNil(answerer.currentCallId)
        XCTAssertTrue(answerer.runningTimers.isEmpty)
        XCTAssertEqual(answerer.lastCall.framesRendered, 42)
        XCTAssertTrue(answerer.lastCall.doorOpened)
        XCTAssertEqual(kinds, [.connected, .registered, .ringing, .accepted, .mediaConnected, .firstFrame, .doorOpened, .ended])
    }

    func testARingWhileBusyIsMissedAndTouchesNothing() throws {
        let session = try acceptedCall()
        let sentBefore = signaller.sent
        signaller.receive(.incoming(callId: "c2", doorName: "Dvor"))
        XCTAssertEqual(last(.missed), .missed(callId: "c2", doorName: "Dvor", reason: "busy"))
        XCTAssertEqual(signaller.sent, sentBefore, "nothing is sent for a missed ring")
        XCTAssertEqual(answerer.currentCallId, "c1")
        XCTAssertEqual(media.made.count, 1)
        XCTAssertFalse(session.finished)
        // The same ring again is ignored, the call in progress ends as usual.
        signaller.receive(.incoming(callId: "c2", doorName: "Dvor"))
        XCTAssertEqual(kinds.filter { $0 == .missed }.count, 1)
        signaller.receive(.callEnd(callId: "c1", reason: "door-hangup"))
        XCTAssertEqual(last(.ended), .ended(callId: "c1", reason: .remote, doorName: door, serverReason: "door-hangup", frames: 0))
        XCTAssertEqual(kinds.filter { $0 == .ended }.count, 1, "the missed ring has no ended")
    }

    func testRejoinAfterADropKeepsTheCall() throws {
        let session = try acceptedCall()
        XCTAssertNil(answerer.command("open"))
        signaller.drop("network down")
        XCTAssertEqual(last(.disconnected), .disconnected(reason: "network down"))
        XCTAssertEqual(answerer.currentCallId, "c1", "media is peer to peer: the call goes on")

        signaller.clearSent()
        signaller.connect()
        // The rejoin goes out first, then the open-door that may have died with the socket.
        XCTAssertEqual(signaller.sent, [.join(callId: "c1"), .openDoor(callId: "c1")])
        XCTAssertTrue(answerer.runningTimers.contains(.rejoin))
        XCTAssertEqual(kinds.filter { $0 == .connected }.count, 2)
        signaller.receive(.joinOk(callId: "c1"))
        XCTAssertFalse(answerer.runningTimers.contains(.rejoin))
        XCTAssertFalse(session.finished)
        XCTAssertNil(last(.ended))
    }

    func testARejoinRefusedEndsTheCallLost() throws {
        _ = try acceptedCall()
        signaller.drop()
        signaller.connect()
        signaller.receive(.error(message: "unknown call c1", callId: nil))
        XCTAssertEqual(last(.error), .error(callId: "c1", message: "server: unknown call c1"))
        XCTAssertEqual(signaller.sent.last, .hangup(callId: "c1"))
        XCTAssertEqual(last(.ended), .ended(callId: "c1", reason: .lost, doorName: door, frames: 0))
    }

    func testTheDoorOpensOnlyAfterAcceptAndWhileConnected() throws {
        try ringWithMedia()
        let sentBefore = signaller.sent
        XCTAssertEqual(answerer.command("open"),
                       "the door opens only once you have accepted the call: accept first, then open")
        XCTAssertEqual(signaller.sent, sentBefore, "no open-door before accept")

        XCTAssertNil(answerer.command("accept"))
        signaller.drop()
        XCTAssertEqual(answerer.command("open"),
                       "not connected to the signaling server: the door was not opened; try again once reconnected")
        XCTAssertEqual(last(.doorOpenFailed), .doorOpenFailed(callId: "c1", reason: .notConnected))
        XCTAssertTrue(signaller.queued.isEmpty, "an open-door is never queued to leave later")

        signaller.connect()
        signaller.receive(.joinOk(callId: "c1"))
        XCTAssertNil(answerer.command("open"))
        XCTAssertEqual(signaller.sent.last, .openDoor(callId: "c1"))
        XCTAssertNil(answerer.command("open"), "a second tap while waiting sends nothing more")
        XCTAssertEqual(signaller.sent.filter { $0 == .openDoor(callId: "c1") }.count, 1)
    }

    func testRejectWhileRingingAndAnsweredElsewhere() throws {
        try ringWithMedia("c1")
        XCTAssertNil(answerer.command("r"))
        XCTAssertEqual(signaller.sent.last, .reject(callId: "c1"))
        XCTAssertEqual(last(.ended), .ended(callId: "c1", reason: .rejected, doorName: door, frames: 0))

        signaller.receive(.incoming(callId: "c2", doorName: "Dvor"))
        signaller.receive(.callEnd(callId: "c2", reason: "answered-elsewhere"))
        XCTAssertEqual(last(.ended), .ended(callId: "c2", reason: .answeredElsewhere, doorName: "Dvor",
                                           serverReason: "answered-elsewhere", frames: 0))
        XCTAssertEqual(answerer.endedCalls, 2)
        XCTAssertEqual(answerer.command("accept"), "no call in progress")
    }

    func testMediaThatCannotBeBuiltEndsTheCallWithItsError() {
        media.failure = "no element \"vp8dec\""
        signaller.receive(.incoming(callId: "c1", doorName: door))
        signaller.receive(.offer(callId: "c1", sdp: "v=0 offer"))
        XCTAssertEqual(signaller.sent.last, .reject(callId: "c1"))
        XCTAssertEqual(last(.error), .error(callId: "c1", message: "no element \"vp8dec\""))
        XCTAssertEqual(last(.ended), .ended(callId: "c1", reason: .mediaFailed, doorName: door, frames: 0))
    }

    func testRecordingIsAnnouncedAndReported() throws {
        signaller.receive(.incoming(callId: "c1", doorName: door))
        signaller.receive(.offer(callId: "c1", sdp: "v=0 offer"))
        let session = try XCTUnwrap(media.latest)
        session.recordingPath = "/r/c1.mkv"
        session.answer()
        XCTAssertEqual(last(.recording), .recording(callId: "c1", path: "/r/c1.mkv"))
        session.measurementFigures = ["framesIntact": .int(3)]
        XCTAssertNil(answerer.command("reject"))
        XCTAssertEqual(last(.measurements), .measurements(callId: "c1", figures: ["framesIntact": .int(3)]))
        XCTAssertEqual(last(.recorded), .recorded(callId: "c1", path: "/r/c1.mkv"))
    }

    func testAutoAnswerAcceptsOnItsOwn() throws {
        makeAnswerer { $0.answerMode = .auto }
        try ringWithMedia()
        // The accept comes from a zero-delay timer: not at once, but as soon as time moves.
        XCTAssertFalse(signaller.sent.contains(.accept(callId: "c1")))
        clock.advance(by: 0)
        XCTAssertTrue(signaller.sent.contains(.accept(callId: "c1")))
        XCTAssertEqual(last(.accepted), .accepted(callId: "c1"))
        XCTAssertTrue(try XCTUnwrap(media.latest).audioEnabled)
    }

    func testManualModeNeverAcceptsOnItsOwn() throws {
        try ringWithMedia()
        // Up to just before the connect timeout would end the call: still ringing, never accepted.
        clock.advance(by: 9.9)
        XCTAssertFalse(signaller.sent.contains(.accept(callId: "c1")))
        XCTAssertNil(last(.accepted))
        XCTAssertEqual(answerer.currentCallId, "c1")
    }
}
