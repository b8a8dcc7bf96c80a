import C1nkSIP
import XCTest

final class RingGroupTests: XCTestCase {
    let offer = SDPOffer(address: "127.0.0.1", port: 40000, sessionID: 1)
    func answer() throws -> SDPAnswer { try SDPAnswer("c=IN IP4 10.0.0.2\nm=audio 4000 RTP/AVP 0 101\na=rtpmap:101 telephone-event/8000\n", offer: offer) }

    func testTheFirstToAnswerTakesTheCallAndTheOthersAreCancelled() throws {
        var group = RingGroup(calls: [1, 2, 3])
        XCTAssertEqual(group.handle(2, .progress(status: 180, phrase: "Ringing")), [])
        let answer = try answer()
        XCTAssertEqual(group.handle(2, .answered(answer)), [.connect(2, answer), .hangUp(1), .hangUp(3)])
        XCTAssertEqual(group.winner, 2)
        // A phone whose 200 crossed our CANCEL is hung up at once.
        XCTAssertEqual(group.handle(3, .answered(answer)), [.hangUp(3)])
        XCTAssertEqual(group.handle(1, .failed(status: 487, reason: "487 Request Terminated")), [])
        XCTAssertEqual(group.handle(1, .ended), [])
        XCTAssertFalse(group.isOver)
    }

    func testKeysCountOnlyFromThePhoneThatAnswered() throws {
        var group = RingGroup(calls: [1, 2])
        XCTAssertEqual(group.handle(1, .key("#")), [], "not answered yet")
        XCTAssertEqual(group.keyFromMedia("#"), [], "not answered yet")
        _ = group.handle(1, .answered(try answer()))
        XCTAssertEqual(group.handle(2, .key("#")), [], "another phone")
        XCTAssertEqual(group.handle(1, .key("#")), [.key("#")])
        XCTAssertEqual(group.keyFromMedia("5"), [.key("5")])
    }

    func testThePhoneHangingUpEndsTheGroup() throws {
        var group = RingGroup(calls: [1, 2])
        _ = group.handle(1, .answered(try answer()))
        XCTAssertEqual(group.handle(1, .hungUpByPhone), [.phoneHungUp, .hangUp(2)])
        XCTAssertTrue(group.isOver)
        XCTAssertEqual(group.handle(1, .ended), [])
        XCTAssertEqual(group.handle(1, .key("#")), [], "nothing after the end")
    }

    func testNoneAnsweredWhenEveryPhoneFails() {
        var group = RingGroup(calls: [1, 2])
        XCTAssertEqual(group.handle(1, .failed(status: 486, reason: "486 Busy Here")), [])
        XCTAssertEqual(group.handle(2, .failed(status: 404, reason: "404 Not Found")), [.noneAnswered])
        XCTAssertEqual(group.handle(1, .ended), [])
        XCTAssertEqual(group.handle(2, .ended), [])
        XCTAssertTrue(group.isOver)
    }

    func testTheDoorHangingUpHangsUpEveryPhone() throws {
        var group = RingGroup(calls: [1, 2, 3])
        _ = group.handle(3, .ended)
        XCTAssertEqual(group.hangUpAll(), [.hangUp(1), .hangUp(2)])
        XCTAssertEqual(group.handle(1, .answered(try answer())), [.hangUp(1)], "an answer after the door hung up")
        XCTAssertEqual(group.handle(9, .answered(try answer())), [], "not one of ours")
    }
}
