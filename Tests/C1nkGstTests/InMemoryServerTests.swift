import XCTest
@testable import C1nkGLib

/// Answerers and the server's router together, over in-memory signallers:
/// the calls of several devices without a socket or a sleep.
final class InMemoryServerTests: XCTestCase {
    private let doorName = "Hlavný vchod"

    override func setUp() { Log.echoToStandardError = false }
    override func tearDown() { Log.echoToStandardError = true }

    /// The door offers to each peer that joined, and each answerer's media answers.
    private func offerToEveryPeer(_ server: InMemoryServer) {
        for case let .join(callId, peerId) in server.toDoor {
            server.door(.offer(callId: callId, peerId: peerId, sdp: "v=0 offer for \(peerId)"))
        }
        for app in server.apps.values { app.media.latest?.answer() }
    }

    func testTwoDevicesRingAndTheFirstAcceptWins() throws {
        let server = InMemoryServer(doorName: doorName)
        let a = server.addAnswerer("a")
        let b = server.addAnswerer("b")
        XCTAssertEqual(a.kinds, [.connected, .registered])

        server.door(.ring)
        XCTAssertEqual(a.last(.ringing), .ringing(callId: "call-1", doorName: doorName))
        XCTAssertEqual(b.last(.ringing), .ringing(callId: "call-1", doorName: doorName))
        XCTAssertEqual(server.toDoor, [.helloOk(doorId: "door-1"), .ringOk(callId: "call-1"),
                                       .join(callId: "call-1", peerId: "peer-1"), .join(callId: "call-1", peerId: "peer-2")])
        offerToEveryPeer(server)
        XCTAssertEqual(a.media.latest?.offer, "v=0 offer for peer-1")

        XCTAssertNil(a.answerer.command("accept"))
        XCTAssertEqual(a.last(.accepted), .accepted(callId: "call-1"))
        XCTAssertEqual(b.last(.ended), .ended(callId: "call-1", reason: .answeredElsewhere, doorName: doorName,
                                              serverReason: "answered-elsewhere", frames: 0))
        XCTAssertEqual(server.toDoor.suffix(2), [.accept(callId: "call-1", peerId: "peer-1"),
                                                 .leave(callId: "call-1", peerId: "peer-2", reason: "answered-elsewhere")])
        XCTAssertTrue(try XCTUnwrap(b.media.latest).finished)

        a.media.latest?.connect()
        XCTAssertNil(a.answerer.command("open"))
        XCTAssertEqual(server.toDoor.last, .openDoor(callId: "call-1", peerId: "peer-1"))
        server.door(.doorOpened(callId: "call-1"))
        XCTAssertEqual(a.last(.doorOpened), .doorOpened(callId: "call-1"))

        server.door(.hangup(callId: "call-1"))
        XCTAssertEqual(a.last(.ended), .ended(callId: "call-1", reason: .remote, doorName: doorName,
                                              serverReason: "door-hangup", frames: 0))
        XCTAssertTrue(server.router.calls.isEmpty)
        XCTAssertEqual(a.kinds.filter { $0 == .ended }.count, 1)
        XCTAssertEqual(b.kinds.filter { $0 == .ended }.count, 1)
    }

    func testADeviceThatDropsMidCallRejoinsAndKeepsIt() throws {
        let server = InMemoryServer(doorName: doorName)
        let a = server.addAnswerer("a")
        server.door(.ring)
        offerToEveryPeer(server)
        XCTAssertNil(a.answerer.command("accept"))
        a.media.latest?.connect()

        server.drop("a")
        XCTAssertEqual(server.timers, [.rejoin(callId: "call-1", deviceId: "a")])
        server.connect("a")
        XCTAssertEqual(a.signaller.sent.suffix(1), [.join(callId: "call-1")])
        XCTAssertTrue(server.timers.isEmpty, "the rejoin stopped the server's grace timer")
        XCTAssertFalse(a.answerer.runningTimers.contains(.rejoin), "join-ok came back")
        XCTAssertEqual(a.answerer.currentCallId, "call-1")
        XCTAssertNil(a.last(.ended))
    }

    func testARingWhileBusyIsMissedAndNotRejected() throws {
        let server = InMemoryServer(doorName: doorName)
        let a = server.addAnswerer("a")
        server.door(.ring)
        offerToEveryPeer(server)
        XCTAssertNil(a.answerer.command("accept"))
        let sent = a.signaller.sent.count

        server.door(.ring)
        XCTAssertEqual(a.last(.missed), .missed(callId: "call-2", doorName: doorName, reason: "busy"))
        XCTAssertEqual(a.signaller.sent.count, sent, "nothing goes out for the missed ring")
        XCTAssertNotNil(server.router.calls["call-2"], "the ring goes on for anyone else")
        server.fire(.ring(callId: "call-2"))
        XCTAssertNil(server.router.calls["call-2"])
        XCTAssertEqual(a.answerer.currentCallId, "call-1")
    }
}
