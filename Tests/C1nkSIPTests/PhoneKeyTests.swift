import C1nkSIP
import XCTest

final class PhoneKeyTests: XCTestCase {
    func testTelephoneEventsAreTheSixteenKeys() {
        XCTAssertEqual(PhoneKey.key(event: 0), "0")
        XCTAssertEqual(PhoneKey.key(event: 9), "9")
        XCTAssertEqual(PhoneKey.key(event: 10), "*")
        XCTAssertEqual(PhoneKey.key(event: 11), "#")
        XCTAssertEqual(PhoneKey.key(event: 15), "D")
        XCTAssertNil(PhoneKey.key(event: 16))
        XCTAssertNil(PhoneKey.key(event: -1))
    }

    func testInfoBodiesOfBothKinds() {
        XCTAssertEqual(PhoneKey.key(infoType: "application/dtmf-relay", body: "Signal=#\r\nDuration=160\r\n"), "#")
        XCTAssertEqual(PhoneKey.key(infoType: "Application/DTMF-Relay", body: "signal= 5\nDuration=100"), "5")
        XCTAssertEqual(PhoneKey.key(infoType: "application/dtmf-relay", body: "Signal=11\r\n"), "#")
        XCTAssertEqual(PhoneKey.key(infoType: "application/dtmf", body: "#\n"), "#")
        XCTAssertEqual(PhoneKey.key(infoType: "application/dtmf", body: "10"), "*")
        XCTAssertNil(PhoneKey.key(infoType: "application/dtmf-relay", body: "Duration=160"))
        XCTAssertNil(PhoneKey.key(infoType: "application/dtmf-relay", body: "Signal=X"))
        XCTAssertNil(PhoneKey.key(infoType: "application/dtmf", body: "##"))
        XCTAssertNil(PhoneKey.key(infoType: "text/plain", body: "#"))
        XCTAssertNil(PhoneKey.key(infoType: "application/dtmf", body: String(repeating: " ", count: 300) + "#"))
    }
}
