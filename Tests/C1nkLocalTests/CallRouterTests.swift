import XCTest
@testable import C1nkLocal
@testable import C1nkProtocol

/// The local server's call flow without sockets: events into `CallRouter`,
/// the messages and timers it answers read back exactly.
final class CallRouterTests: XCTestCase {
    private typealias Action = CallRouter.Action
    private let door = "door-1"
    private let doorName = "Hlavný vchod"
    private var router = CallRouter(ids: .counted())

    /// A door and the apps connected; the hello answers are checked and dropped.
    private func connect(apps: [String]) {
        XCTAssertEqual(router.handle(.doorConnected(doorId: door, doorName: doorName)),
                       [.toDoor(doorId: door, .helloOk(doorId: door))])
        for app in apps {
            XCTAssertEqual(router.handle(.appConnected(deviceId: app)), [.toApp(deviceId: app, .helloOk(deviceId: app))])
        }
    }

    private func app(_ device: String, _ message: ClientMessage) -> [Action] {
        router.handle(.fromApp(deviceId: device, message))
    }

    private func fromDoor(_ message: DoorMessage) -> [Action] { router.handle(.fromDoor(doorId: door, message)) }

    /// The door rings `call-1`; each app is given a peer id in order (`peer-1`, …).
    private func ring(apps: [String]) {
        connect(apps: apps)
        XCTAssertEqual(fromDoor(.ring),
                       [.toDoor(doorId: door, .ringOk(callId: "call-1")),
                        .log("door \(door) rings: call call-1 to \(apps.count) app(s)")]
                       + apps.map { .toApp(deviceId: $0, .incoming(callId: "call-1", doorName: doorName)) }
                       + [.startTimer(.ring(callId: "call-1"), seconds: 60)])
    }

    func testRingJoinOfferAnswerAcceptOpenHangup() {
        ring(apps: ["a"])
        XCTAssertEqual(app("a", .join(callId: "call-1")),
                       [.toApp(deviceId: "a", .joinOk(callId: "call-1")), .toDoor(doorId: door, .join(callId: "call-1", peerId: "peer-1"))])
        XCTAssertEqual(fromDoor(.offer(callId: "call-1", peerId: "peer-1", sdp: "o")),
                       [.toApp(deviceId: "a", .offer(callId: "call-1", sdp: "o"))])
        XCTAssertEqual(app("a", .answer(callId: "call-1", sdp: "s")),
                       [.toDoor(doorId: door, .answer(callId: "call-1", peerId: "peer-1", sdp: "s"))])
        let candidate = IceCandidate(candidate: "candidate:1 1 UDP 1 127.0.0.1 5000 typ host", sdpMid: "0", sdpMLineIndex: 0)
        XCTAssertEqual(app("a", .ice(callId: "call-1", candidate: candidate)),
                       [.toDoor(doorId: door, .ice(callId: "call-1", peerId: "peer-1", candidate: candidate))])
        XCTAssertEqual(fromDoor(.ice(callId: "call-1", peerId: "peer-1", candidate: candidate)),
                       [.toApp(deviceId: "a", .ice(callId: "call-1", candidate: candidate))])
        XCTAssertEqual(app("a", .accept(callId: "call-1")),
                       [.cancelTimer(.ring(callId: "call-1")), .toDoor(doorId: door, .accept(callId: "call-1", peerId: "peer-1"))])
        XCTAssertEqual(app("a", .openDoor(callId: "call-1")),
                       [.toDoor(doorId: door, .openDoor(callId: "call-1", peerId: "peer-1"))])
        XCTAssertEqual(fromDoor(.doorOpened(callId: "call-1")), [.toApp(deviceId: "a", .doorOpenOk(callId: "call-1"))])
        XCTAssertEqual(app("a", .hangup(callId: "call-1")),
                       [.log("call call-1 ended: hangup"), .toDoor(doorId: door, .callEnd(callId: "call-1", reason: "hangup"))])
        XCTAssertTrue(router.calls.isEmpty)
        XCTAssertTrue(router.timers.isEmpty)
    }

    func testTheFirstAcceptWinsAndTheOthersStopRinging() {
        ring(apps: ["a", "b"])
        XCTAssertEqual(app("b", .accept(callId: "call-1")),
                       [.cancelTimer(.ring(callId: "call-1")), .toDoor(doorId: door, .accept(callId: "call-1", peerId: "peer-2")),
                        .toApp(deviceId: "a", .callEnd(callId: "call-1", reason: "answered-elsewhere")),
                        .toDoor(doorId: door, .leave(callId: "call-1", peerId: "peer-1", reason: "answered-elsewhere"))])
        XCTAssertEqual(app("a", .accept(callId: "call-1")),
                       [.toApp(deviceId: "a", .callEnd(callId: "call-1", reason: "answered-elsewhere"))])
        XCTAssertEqual(app("a", .join(callId: "call-1")),
                       [.toApp(deviceId: "a", .callEnd(callId: "call-1", reason: "answered-elsewhere"))])
        XCTAssertEqual(router.calls["call-1"]?.acceptedBy, "b")
    }

    func testEveryoneRejectingEndsTheCall() {
        ring(apps: ["a", "b"])
        XCTAssertEqual(app("a", .reject(callId: "call-1")),
                       [.toDoor(doorId: door, .leave(callId: "call-1", peerId: "peer-1", reason: "rejected"))])
        XCTAssertEqual(app("b", .reject(callId: "call-1")),
                       [.toDoor(doorId: door, .leave(callId: "call-1", peerId: "peer-2", reason: "rejected")),
                        .log("call call-1 ended: rejected"), .cancelTimer(.ring(callId: "call-1")),
                        .toDoor(doorId: door, .callEnd(callId: "call-1", reason: "rejected"))])
        XCTAssertTrue(router.calls.isEmpty)
    }

    func testNobodyAnsweringEndsWithNoAnswer() {
        ring(apps: ["a"])
        XCTAssertEqual(router.handle(.timeout(.ring(callId: "call-1"))),
                       [.log("call call-1 ended: no-answer"), .toApp(deviceId: "a", .callEnd(callId: "call-1", reason: "no-answer")),
                        .toDoor(doorId: door, .callEnd(callId: "call-1", reason: "no-answer"))])
        XCTAssertEqual(router.handle(.timeout(.ring(callId: "call-1"))), [], "a timer fires once")
    }

    func testALateAppIsRungLikeAPush() {
        ring(apps: [])
        XCTAssertEqual(router.handle(.appConnected(deviceId: "late")),
                       [.toApp(deviceId: "late", .helloOk(deviceId: "late")),
                        .toApp(deviceId: "late", .incoming(callId: "call-1", doorName: doorName))])
        XCTAssertEqual(router.calls["call-1"]?.members["late"]?.peerId, "peer-1")
    }

    func testAnAppThatDropsMidCallHasTimeToRejoinAndGetsTheNewOffer() {
        ring(apps: ["a"])
        _ = app("a", .join(callId: "call-1"))
        _ = app("a", .accept(callId: "call-1"))
        XCTAssertEqual(router.handle(.appDisconnected(deviceId: "a")),
                       [.startTimer(.rejoin(callId: "call-1", deviceId: "a"), seconds: 30)])
        // The door renegotiates while the app is away: kept for its rejoin.
        XCTAssertEqual(fromDoor(.offer(callId: "call-1", peerId: "peer-1", sdp: "o2")), [])
        _ = router.handle(.appConnected(deviceId: "a"))
        XCTAssertEqual(app("a", .join(callId: "call-1")),
                       [.cancelTimer(.rejoin(callId: "call-1", deviceId: "a")), .toApp(deviceId: "a", .joinOk(callId: "call-1")),
                        .toApp(deviceId: "a", .offer(callId: "call-1", sdp: "o2"))])
        XCTAssertTrue(router.timers.isEmpty)
        XCTAssertEqual(router.calls["call-1"]?.acceptedBy, "a")
    }

    func testAnAppThatDoesNotComeBackEndsItsCall() {
        ring(apps: ["a"])
        _ = app("a", .join(callId: "call-1"))
        _ = app("a", .accept(callId: "call-1"))
        _ = router.handle(.appDisconnected(deviceId: "a"))
        XCTAssertEqual(router.handle(.timeout(.rejoin(callId: "call-1", deviceId: "a"))),
                       [.log("app a did not come back to call call-1"), .log("call call-1 ended: app-left"),
                        .toDoor(doorId: door, .callEnd(callId: "call-1", reason: "app-left"))])
    }

    func testUnknownCallsAndPeersAreRefusedWithTheirId() {
        connect(apps: ["a"])
        XCTAssertEqual(app("a", .join(callId: "nope")), [.toApp(deviceId: "a", .error(message: "unknown call nope", callId: "nope"))])
        XCTAssertEqual(app("a", .hello(role: "app", deviceId: "a", voipToken: "", bundleId: "")),
                       [.toApp(deviceId: "a", .error(message: "already said hello"))])
        XCTAssertEqual(fromDoor(.offer(callId: "nope", peerId: "peer-9", sdp: "o")),
                       [.errorToDoor(doorId: door, .error(message: "unknown call or peer nope/peer-9", callId: "nope"))])
        XCTAssertEqual(app("a", .registerToken(deviceId: "a", voipToken: "t", bundleId: "b")), [.toApp(deviceId: "a", .tokenOk)])
    }

    func testTheDoorLeavingEndsItsCalls() {
        ring(apps: ["a"])
        XCTAssertEqual(router.handle(.doorDisconnected(doorId: door)),
                       [.log("call call-1 ended: door-left"), .cancelTimer(.ring(callId: "call-1")),
                        .toApp(deviceId: "a", .callEnd(callId: "call-1", reason: "door-left"))])
    }

    func testADoorThatNeverOpensSwallowsOpenDoor() {
        router.options.forwardsOpenDoor = false
        ring(apps: ["a"])
        _ = app("a", .accept(callId: "call-1"))
        XCTAssertEqual(app("a", .openDoor(callId: "call-1")), [])
    }

    func testAForgottenCallIsUnknownAtTheNextJoin() {
        ring(apps: ["a"])
        XCTAssertEqual(router.forget("call-1"), [.cancelTimer(.ring(callId: "call-1"))])
        XCTAssertEqual(app("a", .join(callId: "call-1")),
                       [.toApp(deviceId: "a", .error(message: "unknown call call-1", callId: "call-1"))])
    }
}
