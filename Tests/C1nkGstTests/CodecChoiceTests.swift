import XCTest
@testable import C1nkMedia

/// The answer takes only codecs this machine can play (GStreamer registry).
final class CodecChoiceTests: XCTestCase {
    func testRegistryKnowsWhatPlaysHere() throws {
        let vp8 = try XCTUnwrap(CodecSupport.playable("VP8", media: "video"))
        XCTAssertEqual(vp8.depayloader, "rtpvp8depay")
        XCTAssertNotNil(CodecSupport.playable("h264", media: "video"))
        XCTAssertNotNil(CodecSupport.playable("OPUS", media: "audio", clockRate: 48000))
        XCTAssertNotNil(CodecSupport.playable("PCMU", media: "audio", clockRate: 8000))
        XCTAssertNotNil(CodecSupport.playable("PCMA", media: "audio", clockRate: 8000))
        // GStreamer 1.22 has an AV1 decoder but no AV1 depayloader.
        XCTAssertNil(CodecSupport.playable("AV1", media: "video"))
        XCTAssertNil(CodecSupport.playable("X-NOTHING", media: "audio"))
        XCTAssertEqual(CodecSupport.unplayable(["AV1", "VP8", "rtx"], media: "video"), ["AV1"])
    }

    func testPreferenceOrder() {
        func playable(_ hardware: Set<String>) -> (String) -> CodecSupport.Playable? {
            { name in
                ["VP8", "VP9", "H264"].contains(name)
                    ? CodecSupport.Playable(encodingName: name, media: "video", depayloader: "d", decoder: "x", hardware: hardware.contains(name))
                    : nil
            }
        }
        XCTAssertEqual(OfferSummary.chooseVideoCodec(["H264", "VP9", "VP8"], playable: playable([])), "VP8")
        XCTAssertEqual(OfferSummary.chooseVideoCodec(["H264", "VP9"], playable: playable([])), "VP9")
        XCTAssertEqual(OfferSummary.chooseVideoCodec(["VP8", "H264"], playable: playable(["H264"])), "H264")
        XCTAssertEqual(OfferSummary.chooseVideoCodec(["AV1", "H264"], playable: playable([])), "H264")
        XCTAssertNil(OfferSummary.chooseVideoCodec(["AV1"], playable: playable([])))
    }

    /// A door whose only video codec cannot be played here still gets a call:
    /// the video m-line is declined, audio flows both ways, and an `error`
    /// event names what the door offered.
    func testDoorWithUnplayableVideoGetsAnAudioCall() throws {
        let harness = try CallHarness(door: { $0.announcedVideoCodec = "AV1" }) { options in
            options.answerMode = .auto
            options.answerDelay = 1
            options.hangupAfter = 2
        }
        defer { harness.stop() }
        harness.door.ring()
        waitUntil("the call to end", timeout: 20) { harness.answerer.endedCalls == 1 }
        XCTAssertEqual(harness.lastEvent("ended")?["reason"] as? String, "hangup", "\(harness.callEvents())")
        let error = try XCTUnwrap(harness.lastEvent("error")?["message"] as? String)
        XCTAssertTrue(error.contains("AV1"), error)
        XCTAssertEqual(harness.answerer.lastCall.framesRendered, 0)
        let acceptedAt = try XCTUnwrap(harness.door.acceptedAt)
        XCTAssertGreaterThan(harness.door.loudestHeard(since: acceptedAt + 0.3), -30, "the door hears the resident")
        XCTAssertGreaterThan(harness.answerer.lastCall.speakerPeakWhileEnabled, -30, "the resident hears the door")
    }
}
