import Foundation
import XCTest
@testable import C1nkGLib
@testable import C1nkSIP

/// Phones rung over SIP, against a real baresip on loopback as the phone:
/// the call placed and answered, audio measured both ways, hung up from
/// either side; an INVITE from outside refused.
final class SIPTests: XCTestCase {
    var phone: BaresipPhone?
    var agent: SIPAgent?
    var media: PhoneLegMedia?
    var events: [(SIPAgent.CallID, SIPAgent.CallEvent)] = []

    override func setUp() {
        GStreamer.initialize()
    }

    override func tearDown() {
        media?.stop()
        media = nil
        if let agent {
            var stopped = false
            agent.stop { stopped = true }
            // BYE, CANCEL and un-REGISTER answered, or the shutdown is stuck.
            waitUntil("the SIP agent's shutdown") { stopped }
        }
        agent = nil
        phone?.stop()
        phone = nil
    }

    func startAgent(transport: String = "udp") throws -> SIPAgent {
        guard let port = RTPPortPair.find(on: "127.0.0.1") else { throw XCTSkip("no free loopback UDP port") }
        let agent = try SIPAgent(host: "127.0.0.1", port: port, transport: transport, from: "sip:door@127.0.0.1")
        agent.onCallEvent = { [unowned self] id, event in events.append((id, event)) }
        self.agent = agent
        return agent
    }

    func answered(_ call: SIPAgent.CallID) -> SDPAnswer? {
        for case let (id, .answered(answer)) in events where id == call { return answer }
        return nil
    }

    func has(_ call: SIPAgent.CallID, _ event: SIPAgent.CallEvent) -> Bool {
        events.contains { $0.0 == call && $0.1 == event }
    }

    /// Places a call to baresip and waits until audio flows both ways.
    private func connectedCall(transport: String = "udp", codecs: String = "PCMU,PCMA",
                               offering: [SIPCodec] = [.pcmu, .pcma]) throws -> SIPAgent.CallID {
        let phone = try BaresipPhone(codecs: codecs)
        self.phone = phone
        let agent = try startAgent(transport: transport)
        let media = try PhoneLegMedia(address: "127.0.0.1")
        self.media = media
        let offer = SDPOffer(address: media.address, port: media.port, codecs: offering, sessionID: UInt32.random(in: 1...UInt32.max))
        let call = try XCTUnwrap(agent.call(try SIPURI(phone.uri + (transport == "udp" ? "" : ";transport=\(transport)")), offer: offer))
        waitUntil("baresip's 200 OK", timeout: 15) { answered(call) != nil || events.contains { $0.0 == call && $0.1 == .ended } }
        let answer = try XCTUnwrap(answered(call), "no answer; events \(events); baresip: \(phone.log.suffix(1500))")
        XCTAssertEqual(answer.address, "127.0.0.1")
        try media.start(answer)
        // A second of baresip's tone (50 buffers of 20 ms), loud: ausine plays near full scale.
        waitUntil("baresip's tone at the phone leg", timeout: 15) { media.buffersHeard >= 50 && media.peakHeard > 3000 }
        XCTAssertGreaterThan(media.peakHeard, 3000, "peak heard from baresip")
        XCTAssertTrue(media.sendsFromItsReceivingPorts, "symmetric RTP")
        return call
    }

    func testCallToBaresipCarriesAudioBothWaysAndEndsWithBye() throws {
        let started = MainContext.monotonicSeconds()
        let call = try connectedCall()
        let agent = try XCTUnwrap(agent), phone = try XCTUnwrap(phone)
        // What baresip heard: our tone in its recording (sndfile writes as it decodes).
        waitUntil("our tone in baresip's recording", timeout: 15) { phone.peakHeard() > 3000 }
        XCTAssertGreaterThan(phone.peakHeard(), 3000, "baresip heard: files \(phone.heardFiles)")
        agent.hangUp(call)
        waitUntil("the call's end after BYE", timeout: 15) { has(call, .ended) }
        XCTAssertFalse(has(call, .hungUpByPhone))
        waitUntil("baresip's call closed", timeout: 15) { phone.log.contains("terminated") || phone.log.contains("closed") }
        print("SIPTests: call, audio both ways and BYE in \(String(format: "%.1f", MainContext.monotonicSeconds() - started)) s")
    }

    /// A wideband call: offered first (baresip takes the offer's first codec it has); our tone must
    /// reach its recording and its tone us.
    private func wideband(_ codecs: String, _ expected: SIPCodec) throws {
        let call = try connectedCall(codecs: codecs, offering: [expected, .pcmu])
        XCTAssertEqual(answered(call)?.codec, expected)
        let agent = try XCTUnwrap(agent), phone = try XCTUnwrap(phone)
        waitUntil("our tone in baresip's recording (\(codecs))", timeout: 15) { phone.peakHeard() > 3000 }
        XCTAssertGreaterThan(phone.peakHeard(), 3000, "baresip heard: files \(phone.heardFiles); \(phone.log.suffix(800))")
        agent.hangUp(call)
        waitUntil("the call's end after BYE", timeout: 15) { has(call, .ended) }
    }

    func testAG722CallCarriesAudioBothWays() throws { try wideband("G722", .g722) }

    func testAnOpusCallCarriesAudioBothWays() throws { try wideband("opus", .opus) }

    func testACallOverTCP() throws {
        let call = try connectedCall(transport: "tcp")
        try XCTUnwrap(agent).hangUp(call)
        waitUntil("the call's end after BYE", timeout: 15) { has(call, .ended) }
    }

    func testBaresipHangingUpEndsTheCall() throws {
        let call = try connectedCall()
        try XCTUnwrap(phone).hangUp()
        waitUntil("baresip's BYE", timeout: 15) { has(call, .hungUpByPhone) && has(call, .ended) }
    }

    func testHashPressedOnBaresipArrivesAsATelephoneEvent() throws {
        _ = try connectedCall()
        let media = try XCTUnwrap(media), phone = try XCTUnwrap(phone)
        var keys: [Character] = []
        media.onKey = { keys.append($0) }
        try phone.press("#")
        waitUntil("the # from baresip", timeout: 15) { keys.contains("#") }
        XCTAssertEqual(keys, ["#"], "one press, one key; baresip: \(phone.log.suffix(1500))")
    }

    func testGarbageStrayAnswersAndInvitesFromOutsideLeaveTheCallOn() throws {
        let call = try connectedCall()
        let agent = try XCTUnwrap(agent), media = try XCTUnwrap(media)
        var refused = 0
        agent.onRefused = { _ in refused += 1 }
        let heardBefore = media.buffersHeard
        let port = agent.listenURL.split(separator: ":").last!.split(separator: ";").first!
        let sipp = try SIPp(SIPpScenario.badInput, calls: 20, rate: 20, target: "127.0.0.1:\(port)")
        defer { sipp.stop() }
        let status = sipp.wait(timeout: 40)
        XCTAssertEqual(status, 0, "SIPp: \(sipp.output.suffix(1500)) \(sipp.errors.suffix(1500))")
        XCTAssertEqual(refused, 20, "each INVITE from outside refused")
        // The call to baresip went on throughout: still up, still hearing the phone.
        XCTAssertFalse(has(call, .ended))
        waitUntil("the phone's audio after the flood") { media.buffersHeard >= heardBefore + 50 }
        agent.hangUp(call)
        waitUntil("the call's end after BYE", timeout: 15) { has(call, .ended) }
    }

    func testTheFirstPhoneToAnswerTakesTheCallAndTheOtherIsCancelled() throws {
        let ringing = try BaresipPhone(answerMode: "manual")
        defer { ringing.stop() }
        let answering = try BaresipPhone()
        phone = answering
        let agent = try startAgent()
        let ring = PhoneRing(agent: agent, uris: [try SIPURI(ringing.uri), try SIPURI(answering.uri)], address: "127.0.0.1")
        agent.onCallEvent = { [unowned self] id, event in
            events.append((id, event))
            ring.handle(id, event)
        }
        var outcomes: [PhoneRing.Outcome] = []
        ring.onOutcome = { outcomes.append($0) }
        waitUntil("the answering phone taking the call", timeout: 15) { !outcomes.isEmpty }
        XCTAssertEqual(outcomes, [.connected(try SIPURI(answering.uri))])
        let media = try XCTUnwrap(ring.winnerMedia)
        waitUntil("the answering phone's tone", timeout: 15) { media.buffersHeard >= 25 && media.peakHeard > 3000 }
        // The phone still ringing was cancelled: its call ended, answered 487.
        let winner = try XCTUnwrap(ring.group.winner)
        let cancelled = try XCTUnwrap(events.first { $0.0 != winner }?.0)
        waitUntil("the ringing phone's CANCEL", timeout: 15) { has(cancelled, .ended) }
        XCTAssertTrue(events.contains { if $0.0 == cancelled, case .failed(487, _) = $0.1 { true } else { false } }, "\(events)")
        // The door hangs up: the answering phone gets BYE.
        ring.hangUpAll()
        waitUntil("the answering phone's BYE", timeout: 15) { has(winner, .ended) }
        XCTAssertEqual(outcomes.count, 1)
    }

    func testAnAnswerWithoutOurCodecsIsHungUpWithAReason() throws {
        let agent = try startAgent()
        guard let port = RTPPortPair.find(on: "127.0.0.1") else { throw XCTSkip("no free loopback UDP port") }
        let sipp = try SIPp(SIPpScenario.answersWithoutOurCodecs, calls: 1, port: port)
        defer { sipp.stop() }
        // An INVITE before SIPp listens would meet a closed port (ICMP, and sofia's 503).
        XCTAssertTrue(sipp.waitUntilListening(on: port), "SIPp: \(sipp.output.suffix(1500))")
        let call = try XCTUnwrap(agent.call(try SIPURI("sip:phone@127.0.0.1:\(port)"),
                                            offer: SDPOffer(address: "127.0.0.1", port: 40000, sessionID: 7)))
        waitUntil("the call's end", timeout: 20) { has(call, .ended) }
        let reasons = events.compactMap { if case .failed(488, let reason) = $0.1 { reason } else { nil } }
        XCTAssertEqual(reasons.count, 1, "\(events)")
        XCTAssertTrue(reasons.first?.contains("none of its codecs") ?? false, "\(reasons)")
        XCTAssertNil(answered(call))
        // SIPp saw our ACK and then our BYE, and answered it.
        XCTAssertEqual(sipp.wait(timeout: 20), 0, "SIPp: \(sipp.output.suffix(1500)) \(sipp.errors.suffix(1500))")
    }

    func testAReinviteFromThePhoneIsAnsweredAndTheCallGoesOn() throws {
        let agent = try startAgent()
        guard let port = RTPPortPair.find(on: "127.0.0.1") else { throw XCTSkip("no free loopback UDP port") }
        let sipp = try SIPp(SIPpScenario.answersThenReinvites, calls: 1, port: port)
        defer { sipp.stop() }
        XCTAssertTrue(sipp.waitUntilListening(on: port), "SIPp: \(sipp.output.suffix(1500))")
        let call = try XCTUnwrap(agent.call(try SIPURI("sip:phone@127.0.0.1:\(port)"),
                                            offer: SDPOffer(address: "127.0.0.1", port: 40000, sessionID: 8)))
        waitUntil("the re-INVITE", timeout: 20) { has(call, .updated) || has(call, .ended) }
        XCTAssertTrue(has(call, .updated), "\(events)")
        XCTAssertNotNil(answered(call))
        XCTAssertFalse(has(call, .ended))
        agent.hangUp(call)
        waitUntil("the call's end after BYE", timeout: 15) { has(call, .ended) }
        XCTAssertEqual(sipp.wait(timeout: 20), 0, "SIPp: \(sipp.output.suffix(1500)) \(sipp.errors.suffix(1500))")
    }

    func testAnInviteFromOutsideIsRefusedWith403() throws {
        // sofia's stack runs on the main context: two agents and a call between them start no thread.
        let threadsBefore = Self.threadCount()
        let bridge = try startAgent()
        var refused: [String] = []
        bridge.onRefused = { refused.append($0) }
        guard let port = RTPPortPair.find(on: "127.0.0.1") else { throw XCTSkip("no free loopback UDP port") }
        let outsider = try SIPAgent(host: "127.0.0.1", port: port, from: "sip:stranger@127.0.0.1")
        var outsiderEvents: [SIPAgent.CallEvent] = []
        outsider.onCallEvent = { _, event in outsiderEvents.append(event) }
        let listen = bridge.listenURL.replacingOccurrences(of: ";transport=udp", with: "")
        let target = try SIPURI(listen.replacingOccurrences(of: "sip:", with: "sip:door@"))
        _ = try XCTUnwrap(outsider.call(target, offer: SDPOffer(address: "127.0.0.1", port: 40000, sessionID: 1)))
        waitUntil("the refusal", timeout: 15) { outsiderEvents.contains { if case .failed(403, _) = $0 { true } else { false } } }
        XCTAssertEqual(refused.count, 1)
        XCTAssertTrue(refused.first?.hasPrefix("sip:stranger@") ?? false, "\(refused)")
        // Another test's thread may still be ending (a resolver, a teardown): a thread of sofia's would stay.
        _ = MainContext.run(timeout: 5) { Self.threadCount() <= threadsBefore }
        XCTAssertLessThanOrEqual(Self.threadCount(), threadsBefore, "threads of the process")
        var stopped = false
        outsider.stop { stopped = true }
        waitUntil("the outsider's stop") { stopped }
    }

    private static func threadCount() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count) ?? 0
    }
}
