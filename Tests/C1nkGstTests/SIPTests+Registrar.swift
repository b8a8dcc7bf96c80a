import Foundation
import XCTest
@testable import C1nkGLib
@testable import C1nkSIP

/// The bridge behind a registrar (a real kamailio on loopback): REGISTER
/// with digest auth, wrong credentials said as such and retried later, and
/// a phone rung through the registrar with the INVITE challenged too.
extension SIPTests {
    private func register(at kamailio: KamailioRegistrar, password: String,
                          clock: any TimerClock = GLibClock.shared) throws -> SIPRegistration {
        let agent = try startAgent()
        let registration = try SIPRegistration(agent: agent, registrar: try SIPURI(kamailio.uri),
                                           aor: try SIPURI("sip:door@127.0.0.1:\(kamailio.port)"),
                                           user: "door", password: password, expires: 60, clock: clock)
        registration.start()
        return registration
    }

    func testRegistrationWithDigestAuthAtKamailio() throws {
        let kamailio = try KamailioRegistrar()
        defer { kamailio.stop() }
        let registration = try register(at: kamailio, password: KamailioRegistrar.password)
        waitUntil("the registration", timeout: 15) { registration.state != .registering }
        XCTAssertEqual(registration.state, .registered, kamailio.log.suffix(1500).description)
        XCTAssertTrue(kamailio.log.contains("registered sip:door@127.0.0.1"))
    }

    func testWrongPasswordIsSaidAndRetriedLater() throws {
        let kamailio = try KamailioRegistrar()
        defer { kamailio.stop() }
        let clock = ManualClock()
        let registration = try register(at: kamailio, password: "not the password", clock: clock)
        waitUntil("the refusal", timeout: 15) { registration.state != .registering }
        guard case .failed(let reason, let retryIn) = registration.state else {
            return XCTFail("registered with a wrong password: \(registration.state)")
        }
        XCTAssertTrue(reason.contains("check --sip-user and --sip-password-file"), reason)
        XCTAssertEqual(retryIn, 5)
        // Tried again when the wait is over, and refused again: the next wait is twice as long.
        clock.advance(by: 5)
        XCTAssertEqual(registration.state, .registering)
        waitUntil("the second refusal", timeout: 15) { registration.state != .registering }
        XCTAssertEqual(registration.state, .failed(reason: reason, retryIn: 10))
        XCTAssertFalse(kamailio.log.contains("registered sip:door"))
    }

    func testCredentialsThatCannotBeSentAreRefusedUpFront() throws {
        let agent = try startAgent()
        let registrar = try SIPURI("sip:127.0.0.1:5060"), aor = try SIPURI("sip:door@127.0.0.1")
        XCTAssertThrowsError(try SIPRegistration(agent: agent, registrar: registrar, aor: aor, user: "do:or", password: "x")) {
            XCTAssertTrue("\($0)".contains("--sip-user"), "\($0)")
        }
        XCTAssertThrowsError(try SIPRegistration(agent: agent, registrar: registrar, aor: aor, user: "door", password: "a\nb")) {
            XCTAssertTrue("\($0)".contains("--sip-password-file"), "\($0)")
        }
    }

    /// The registrar routes the INVITE only (no Record-Route): once it goes down mid-call the
    /// call's audio and its BYE go on between the bridge and the phone.
    func testAPhoneRungThroughTheRegistrarTalksOnWhenTheRegistrarGoesDown() throws {
        let kamailio = try KamailioRegistrar()
        defer { kamailio.stop() }
        let phone = try BaresipPhone(registrar: kamailio)
        self.phone = phone
        let registration = try register(at: kamailio, password: KamailioRegistrar.password)
        waitUntil("the registration", timeout: 15) { registration.state == .registered }
        let agent = try XCTUnwrap(agent)
        let media = try PhoneLegMedia(address: "127.0.0.1")
        self.media = media
        let offer = SDPOffer(address: media.address, port: media.port, sessionID: 42)
        // The phone's address at the registrar; kamailio challenges the INVITE (407) before it routes it.
        let call = try XCTUnwrap(agent.call(try SIPURI("sip:phone@127.0.0.1:\(kamailio.port)"), offer: offer))
        waitUntil("the phone's answer through kamailio", timeout: 20) { answered(call) != nil || has(call, .ended) }
        let answer = try XCTUnwrap(answered(call), "events \(events); kamailio: \(kamailio.log.suffix(1500))")
        try media.start(answer)
        waitUntil("the phone's tone", timeout: 15) { media.buffersHeard >= 25 && media.peakHeard > 3000 }
        kamailio.stop()
        // 20 ms packets: two seconds are 100; half of them is plenty on a loaded machine.
        let before = media.buffersHeard
        waitUntil("the phone's tone with the registrar down", timeout: 10) { media.buffersHeard >= before + 50 }
        XCTAssertFalse(has(call, .ended), "the call goes on without the registrar")
        agent.hangUp(call)
        waitUntil("the call's end after BYE", timeout: 15) { has(call, .ended) }
        XCTAssertFalse(events.contains { $0.0 == call && { if case .failed = $0.1 { true } else { false } }($0) }, "\(events)")
        waitUntil("the phone's call closed by our BYE, straight to it", timeout: 15) {
            phone.log.contains("terminated") || phone.log.contains("closed")
        }
    }
}
