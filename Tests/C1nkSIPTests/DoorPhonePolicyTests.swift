import C1nkCall
import C1nkSIP
import XCTest

final class DoorPhonePolicyTests: XCTestCase {
    func testAPhoneTakingTheCallAcceptsItOpensWithTheKeyAndHangsUp() throws {
        var policy = DoorPhonePolicy(openKey: "#")
        XCTAssertEqual(policy.door(.ringing(callId: "c1", doorName: "Front")), [.ring(callId: "c1")])
        XCTAssertEqual(policy.key("#"), [], "nobody answered yet")
        XCTAssertEqual(policy.phone(.connected(try SIPURI("sip:desk@10.0.0.2"))), [.userAccept])
        XCTAssertEqual(policy.door(.accepted(callId: "c1")), [], "our own accept does not hang the phone up")
        XCTAssertEqual(policy.key("5"), [])
        XCTAssertEqual(policy.key("#"), [.userOpenDoor])
        XCTAssertEqual(policy.phone(.phoneHungUp), [.userHangup])
        XCTAssertNil(policy.callId)
        XCTAssertEqual(policy.key("#"), [], "after the phone hung up")
    }

    func testTheDoorEndingOrAnAcceptElsewhereHangsThePhonesUp() throws {
        var policy = DoorPhonePolicy()
        _ = policy.door(.ringing(callId: "c1", doorName: "Front"))
        XCTAssertEqual(policy.door(.accepted(callId: "c1")), [.hangUp], "accepted at the wall")
        XCTAssertEqual(policy.phone(.connected(try SIPURI("sip:desk@10.0.0.2"))), [], "too late")

        _ = policy.door(.ringing(callId: "c2", doorName: "Front"))
        XCTAssertEqual(policy.door(.ended(callId: "other", reason: .remote, doorName: "Back")), [])
        XCTAssertEqual(policy.door(.ended(callId: "c2", reason: .remote, doorName: "Front")), [.hangUp])

        _ = policy.door(.ringing(callId: "c3", doorName: "Front"))
        XCTAssertEqual(policy.door(.missed(callId: "c3", doorName: "Front", reason: "busy")), [.hangUp])
    }

    func testASecondRingWhilePhonesRingIsLeftAlone() {
        var policy = DoorPhonePolicy()
        XCTAssertEqual(policy.door(.ringing(callId: "c1", doorName: "Front")), [.ring(callId: "c1")])
        XCTAssertEqual(policy.door(.ringing(callId: "c2", doorName: "Back")), [])
        XCTAssertEqual(policy.callId, "c1")
        XCTAssertEqual(policy.phone(.noneAnswered), [])
    }
}
