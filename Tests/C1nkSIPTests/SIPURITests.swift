import C1nkSIP
import XCTest

final class SIPURITests: XCTestCase {
    func testPhoneAddressesAreRead() throws {
        let uri = try SIPURI("sip:phone@192.168.1.20:5062")
        XCTAssertEqual(uri.user, "phone")
        XCTAssertEqual(uri.host, "192.168.1.20")
        XCTAssertEqual(uri.port, 5062)
        XCTAssertFalse(uri.isSecure)
        let plain = try SIPURI("sips:**610@fritz.box;transport=tls")
        XCTAssertTrue(plain.isSecure)
        XCTAssertEqual(plain.user, "**610")
        XCTAssertEqual(plain.host, "fritz.box")
        XCTAssertNil(plain.port)
        XCTAssertEqual(try SIPURI("sip:[::1]:5060").host, "[::1]")
        XCTAssertEqual(try SIPURI("sip:desk.local").user, nil)
    }

    func testBadAddressesAreRefusedWithWhatToDo() {
        for bad in ["", "tel:+4930123", "sip:", "sip:@host", "sip:a b@host", "sip:phone@host\r\nVia: x",
                    "sip:phone@host:0", "sip:phone@host:70000", "sip:phone@host:x", "sip:<phone@host>",
                    "sip:phone@ho$t", "sip:" + String(repeating: "a", count: 300) + "@host", "sip:[::1"] {
            XCTAssertThrowsError(try SIPURI(bad), bad) { error in
                XCTAssertTrue("\(error)".contains("give one like sip:"), "\(error)")
            }
        }
    }
}
