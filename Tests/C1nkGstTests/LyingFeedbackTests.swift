import XCTest
@testable import C1nkAnswerer
@testable import C1nkDoor
@testable import C1nkGLib
@testable import C1nkLocal

/// Real calls where the other side or the link misbehaves: RTCP that lies,
/// packets cut short, a link that drops everything for 2 s. The answerer
/// must not crash, must keep the call, and must show a frozen picture as
/// such (`video-stalled`, `video-resumed`).
///
/// Where the lies go in: the door's own rtpsession, before encryption
/// (`SimulatedDoor.sendRTCP`). Media is DTLS-SRTP on the wire, so a packet
/// added or rewritten in the relay fails SRTCP authentication and the
/// answerer never parses it; only the door can make a lie the answerer
/// reads. The relay is where packets break on the way (`truncateFromDoor`,
/// `blackout`), which authentication must catch.
final class LyingFeedbackTests: XCTestCase {
    /// A call through a relay on loopback, accepted, with `frames` frames shown.
    private func flowingCall(frames: Int = 30) throws -> (CallHarness, MediaRelay) {
        let harness = try CallHarness { options in
            options.answerMode = .auto
            options.media.videoSink = "fakesink sync=false"
        }
        let relay = MediaRelay()
        harness.server.relay = relay
        harness.door.ring()
        waitUntil("the call's video", timeout: 15) {
            harness.count("accepted") == 1 && (harness.answerer.currentSession?.framesRendered ?? 0) >= frames
        }
        return (harness, relay)
    }

    private func frames(_ harness: CallHarness) -> Int { harness.answerer.currentSession?.framesRendered ?? 0 }

    /// What the answerer sends toward the door per second, over `seconds`
    /// of the main loop (a measurement window, not a proof of absence).
    private func packetsToDoorPerSecond(_ relay: MediaRelay, over seconds: Double) -> Double {
        let before = relay.packetsToDoor
        let start = MainContext.monotonicSeconds()
        MainContext.spin(seconds)
        return Double(relay.packetsToDoor - before) / (MainContext.monotonicSeconds() - start)
    }

    private func assertTheCallGoesOn(_ harness: CallHarness, _ callId: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(harness.answerer.currentCallId, callId, "the same call", file: file, line: line)
        XCTAssertEqual(harness.count("ended"), 0, "not hung up: \(harness.callEvents())", file: file, line: line)
        XCTAssertEqual(harness.count("error"), 0, "\(harness.events.written.filter { $0["event"] as? String == "error" })",
                       file: file, line: line)
    }

    func testRTCPThatLiesLeavesTheCallAndWhatTheAnswererSendsSane() throws {
        let (harness, relay) = try flowingCall()
        defer { harness.stop(); relay.stop() }
        let callId = try XCTUnwrap(harness.answerer.currentCallId)
        let usual = packetsToDoorPerSecond(relay, over: 1)

        let lies: [(String, [UInt8])] = [
            ("a REMB of 1 kbit/s", LyingRTCP.remb(bitsPerSecond: 1000)),
            ("TWCC for sequence numbers never sent", LyingRTCP.transportFeedback(base: 40_000, count: 2, chunks: [0x2002], deltas: [4, 4])),
            ("TWCC claiming 65535 packets with one chunk and no deltas", LyingRTCP.transportFeedback(base: 1, count: 65_535, chunks: [0x3FFF], deltas: [])),
            ("a NACK for packets never sent", LyingRTCP.nack(sequence: 60_000, following: 0xFFFF)),
            ("an unknown packet type (210)", LyingRTCP.unknownType),
            ("a length past the packet's end", LyingRTCP.truncated),
        ]
        // One at a time: each its own compound packet, so that none hides another.
        var leftAfter: [Int] = []
        for (index, (what, packet)) in lies.enumerated() {
            let start = MainContext.monotonicSeconds()
            XCTAssertTrue(harness.door.sendRTCP(packet), "the door's session takes \(what)")
            waitUntil("\(what) to leave with the door's RTCP", timeout: 15) { harness.door.extraRTCPSent > index }
            leftAfter.append(Int((MainContext.monotonicSeconds() - start) * 1000))
        }
        let afterLies = frames(harness)
        waitUntil("video after the lies", timeout: 10) { frames(harness) >= afterLies + 60 }
        let lied = packetsToDoorPerSecond(relay, over: 1)
        print("lying RTCP: \(lies.count) packets, each left after \(leftAfter) ms; answerer → door \(Int(usual)) packets/s before, \(Int(lied)) after")
        assertTheCallGoesOn(harness, callId)
        // A loaded machine may freeze the picture for a second; what must not happen is a picture that stays frozen.
        XCTAssertEqual(harness.count("video-stalled"), harness.count("video-resumed"), "every frozen picture came back")
        // Its audio and RTCP keep going, and no lie set off a storm of feedback.
        XCTAssertGreaterThan(lied, 0.5 * usual, "the answerer still sends toward the door")
        XCTAssertLessThan(lied, 2 * usual + 20, "and no more than it did")
    }

    func testPacketsCutShortOnTheWayAreThrownAwayAndTheCallGoesOn() throws {
        let (harness, relay) = try flowingCall()
        defer { harness.stop(); relay.stop() }
        let callId = try XCTUnwrap(harness.answerer.currentCallId)
        relay.truncateFromDoor(next: 60)
        waitUntil("60 packets cut short") { relay.doorPacketsToTruncate == 0 }
        let after = frames(harness)
        waitUntil("video after them", timeout: 10) { frames(harness) >= after + 60 }
        assertTheCallGoesOn(harness, callId)
    }

    /// Everything lost both ways for 2 s (a router rebooting): the call is
    /// not hung up, the frozen picture is reported, and it comes back.
    func testATwoSecondBlackoutIsReportedAndThePictureReturns() throws {
        let (harness, relay) = try flowingCall()
        defer { harness.stop(); relay.stop() }
        let callId = try XCTUnwrap(harness.answerer.currentCallId)
        let start = MainContext.monotonicSeconds()
        relay.blackout(seconds: 2)
        waitUntil("video-stalled", timeout: 3) { harness.count("video-stalled") == 1 }
        let stalledAfter = MainContext.monotonicSeconds() - start
        waitUntil("the blackout's end", timeout: 3) { !relay.isBlackedOut }
        let end = MainContext.monotonicSeconds()
        waitUntil("video-resumed within 5 s of the blackout", timeout: 5) { harness.count("video-resumed") == 1 }
        let back = MainContext.monotonicSeconds() - end
        let resumedFrames = frames(harness)
        waitUntil("the picture moving again", timeout: 5) { frames(harness) >= resumedFrames + 30 }
        let stalledMs = try XCTUnwrap(harness.lastEvent("video-resumed")?["stalledMs"] as? Int)
        print("2 s blackout: \(relay.packetsBlackedOut) packets dropped, video-stalled after \(Int(stalledAfter * 1000)) ms, "
              + "back \(Int(back * 1000)) ms after the link, stalled \(stalledMs) ms; events \(harness.callEvents())")
        XCTAssertGreaterThan(relay.packetsBlackedOut, 50)
        XCTAssertGreaterThanOrEqual(stalledAfter, 0.9, "not before a second without a frame")
        XCTAssertGreaterThanOrEqual(stalledMs, 1500)
        XCTAssertLessThanOrEqual(stalledMs, 2000 + 5000)
        XCTAssertEqual(harness.lastEvent("video-stalled")?["callId"] as? String, callId)
        assertTheCallGoesOn(harness, callId)
    }
}

/// RTCP packets that lie (RFC 3550 headers; feedback as RFC 4585, REMB as
/// draft-alvestrand-rmcat-remb, TWCC as draft-holmer-rmcat-transport-wide-cc).
/// Bytes 4–7, the sender's SSRC, are the door's own once sent.
enum LyingRTCP {
    static let mediaSSRC: UInt32 = 0x1234_5678

    static func word(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xff), UInt8(value >> 8 & 0xff), UInt8(value & 0xff)]
    }

    static func half(_ value: UInt16) -> [UInt8] { [UInt8(value >> 8), UInt8(value & 0xff)] }

    /// Version 2, `count` (a feedback packet's FMT), the type, and the
    /// length in 32-bit words after the header.
    static func header(count: UInt8, type: UInt8, words: Int) -> [UInt8] {
        [0x80 | count, type] + half(UInt16(words))
    }

    static func packet(count: UInt8, type: UInt8, body: [UInt8]) -> [UInt8] {
        var body = body
        while body.count % 4 != 0 { body.append(0) }
        return header(count: count, type: type, words: body.count / 4) + body
    }

    /// PSFB (206) FMT 15 "REMB": the receiver's estimate for `mediaSSRC`.
    static func remb(bitsPerSecond: UInt32) -> [UInt8] {
        var exponent: UInt32 = 0
        var mantissa = bitsPerSecond
        while mantissa >= 1 << 18 {
            mantissa >>= 1
            exponent += 1
        }
        let estimate: [UInt8] = [1, UInt8(exponent << 2 | mantissa >> 16), UInt8(mantissa >> 8 & 0xff), UInt8(mantissa & 0xff)]
        return packet(count: 15, type: 206, body: word(0) + word(0) + Array("REMB".utf8) + estimate + word(mediaSSRC))
    }

    /// RTPFB (205) FMT 15: transport-wide feedback from `base` for `count`
    /// packets, with the given status chunks and receive deltas.
    static func transportFeedback(base: UInt16, count: UInt16, chunks: [UInt16], deltas: [UInt8]) -> [UInt8] {
        let fci = half(base) + half(count) + [0, 0, 1, 7] + chunks.flatMap(half) + deltas
        return packet(count: 15, type: 205, body: word(0) + word(mediaSSRC) + fci)
    }

    /// RTPFB (205) FMT 1: NACK for `sequence` and the 16 after it in `following`.
    static func nack(sequence: UInt16, following: UInt16) -> [UInt8] {
        packet(count: 1, type: 205, body: word(0) + word(mediaSSRC) + half(sequence) + half(following))
    }

    /// A packet type no RFC gives.
    static let unknownType = packet(count: 0, type: 210, body: word(0) + Array("lies".utf8))

    /// A REMB whose length says 84 bytes; 12 are there. The whole compound
    /// packet it ends is invalid.
    static let truncated = header(count: 15, type: 206, words: 20) + word(0) + word(0)
}
