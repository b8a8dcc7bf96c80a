import Foundation
import XCTest
@testable import C1nkCall
@testable import C1nkGLib
@testable import C1nkSIP

/// The door and phone policy with a real phone: the door's ring rings
/// baresip, its answer accepts, its `#` opens, its hang-up hangs up — what
/// the answerer will hear once the command wires it.
extension SIPTests {
    func testTheDoorsRingReachesBaresipWhoseAnswerKeyAndHangUpDriveTheCall() throws {
        let phone = try BaresipPhone()
        self.phone = phone
        let agent = try startAgent()
        var policy = DoorPhonePolicy(openKey: "#")
        var ring: PhoneRing?
        var toAnswerer: [CallMachine.Event] = []
        agent.onCallEvent = { [unowned self] id, event in
            events.append((id, event))
            ring?.handle(id, event)
        }
        func door(_ event: CallEvent) throws {
            for command in policy.door(event) {
                switch command {
                case .ring:
                    let phones = PhoneRing(agent: agent, uris: [try SIPURI(phone.uri)], address: "127.0.0.1")
                    phones.onOutcome = { toAnswerer += policy.phone($0) }
                    phones.onKey = { toAnswerer += policy.key($0) }
                    ring = phones
                case .hangUp:
                    ring?.hangUpAll()
                }
            }
        }
        try door(.ringing(callId: "c1", doorName: "Front"))
        waitUntil("baresip taking the call", timeout: 15) { toAnswerer == [.userAccept] }
        try door(.accepted(callId: "c1"))
        let media = try XCTUnwrap(ring?.winnerMedia)
        waitUntil("baresip's tone", timeout: 15) { media.buffersHeard >= 25 && media.peakHeard > 3000 }
        try phone.press("#")
        waitUntil("the door opened from the phone", timeout: 15) { toAnswerer.contains(.userOpenDoor) }
        try phone.hangUp()
        waitUntil("the phone's hang-up", timeout: 15) { toAnswerer.last == .userHangup }
        XCTAssertEqual(toAnswerer, [.userAccept, .userOpenDoor, .userHangup])
        // The answerer then ends the door's call; the phones are gone already.
        try door(.ended(callId: "c1", reason: .hangup, doorName: "Front"))
        XCTAssertNil(policy.callId)
    }
}
