import C1nkSIP
import XCTest

final class SDPTests: XCTestCase {
    let offer = SDPOffer(address: "127.0.0.1", port: 40000, sessionID: 7)

    func testOfferListsOpusG722G711AndTelephoneEvents() {
        let text = offer.text
        XCTAssertTrue(text.hasPrefix("v=0\r\n"))
        XCTAssertTrue(text.contains("c=IN IP4 127.0.0.1\r\n"))
        XCTAssertTrue(text.contains("m=audio 40000 RTP/AVP 111 9 0 8 101\r\n"))
        XCTAssertTrue(text.contains("a=rtpmap:111 opus/48000/2\r\n"))
        XCTAssertTrue(text.contains("a=rtpmap:9 G722/8000\r\n"))
        XCTAssertTrue(text.contains("a=rtpmap:0 PCMU/8000\r\n"))
        XCTAssertTrue(text.contains("a=rtpmap:8 PCMA/8000\r\n"))
        XCTAssertTrue(text.contains("a=rtpmap:101 telephone-event/8000\r\n"))
        XCTAssertTrue(text.hasSuffix("a=sendrecv\r\n"))
        XCTAssertTrue(SDPOffer(address: "::1", port: 40000, sessionID: 1).text.contains("c=IN IP6 ::1\r\n"))
    }

    func testAnswerTakesThePhonesFirstOfferedCodec() throws {
        let answer = try SDPAnswer("""
            v=0\r
            o=- 1 2 IN IP4 10.0.0.5\r
            s=-\r
            c=IN IP4 10.0.0.5\r
            t=0 0\r
            m=audio 30000 RTP/AVP 8 0 101\r
            a=rtpmap:8 PCMA/8000\r
            a=rtpmap:0 PCMU/8000\r
            a=rtpmap:101 telephone-event/8000\r
            a=sendrecv\r

            """, offer: offer)
        XCTAssertEqual(answer.codec, .pcma)
        XCTAssertEqual(answer.payloadType, 8)
        XCTAssertEqual(answer.address, "10.0.0.5")
        XCTAssertEqual(answer.port, 30000)
        XCTAssertEqual(answer.rtcpPort, 30001)
        XCTAssertEqual(answer.telephoneEventPayloadType, 101)
    }

    func testAnswerReadsMediaAddressRTCPAndBareNewlines() throws {
        let answer = try SDPAnswer("v=0\nc=IN IP4 10.0.0.1\nm=audio 4000 RTP/AVP 0\nc=IN IP4 10.0.0.9\na=rtcp:4010\n", offer: offer)
        XCTAssertEqual(answer.codec, .pcmu)
        XCTAssertEqual(answer.address, "10.0.0.9")
        XCTAssertEqual(answer.rtcpPort, 4010)
        XCTAssertNil(answer.telephoneEventPayloadType)
    }

    func testAnswersWithoutUsableAudioAreRefusedWithAReason() {
        func reason(_ text: String) -> String {
            do { _ = try SDPAnswer(text, offer: offer); return "accepted" } catch { return "\(error)" }
        }
        XCTAssertTrue(reason("v=0\nc=IN IP4 10.0.0.1\nm=audio 4000 RTP/AVP 18\na=rtpmap:18 G729/8000\n").contains("none of its codecs"))
        XCTAssertTrue(reason("v=0\nc=IN IP4 10.0.0.1\nm=audio 0 RTP/AVP 0\n").contains("declined"))
        XCTAssertTrue(reason("v=0\nc=IN IP4 10.0.0.1\nm=video 4000 RTP/AVP 96\n").contains("no audio"))
        XCTAssertTrue(reason("v=0\nm=audio 4000 RTP/AVP 0\n").contains("no connection address"))
        XCTAssertTrue(reason("v=0\nc=IN IP4 evil.example;rm\nm=audio 4000 RTP/AVP 0\n").contains("numeric"))
        XCTAssertTrue(reason("v=0\nc=IN IP4 10.0.0.1\nm=audio 99999 RTP/AVP 0\n").contains("malformed"))
        XCTAssertTrue(reason(String(repeating: "a=x\n", count: 5000)).contains("larger than"))
        XCTAssertTrue(reason(String(repeating: "a=x\n", count: 300)).contains("lines"))
        // A dynamic type is PCMA only by its rtpmap; an unknown dynamic type is not.
        XCTAssertEqual(try SDPAnswer("c=IN IP4 10.0.0.1\nm=audio 4000 RTP/AVP 96\na=rtpmap:96 PCMA/8000\n", offer: offer).codec, .pcma)
        XCTAssertTrue(reason("c=IN IP4 10.0.0.1\nm=audio 4000 RTP/AVP 96\n").contains("none of its codecs"))
    }

    func testTheDoorsVideoIsOfferedSendOnlyAndTakenInOneOfItsCodecs() throws {
        let offer = SDPOffer(address: "127.0.0.1", port: 40000, sessionID: 7, videoPort: 40002)
        XCTAssertTrue(offer.text.contains("m=video 40002 RTP/AVP 97 96\r\n"))
        XCTAssertTrue(offer.text.contains("a=rtpmap:96 VP8/90000\r\na=rtcp-fb:96 nack pli\r\n"))
        XCTAssertTrue(offer.text.contains("a=fmtp:97 packetization-mode=1;profile-level-id=42e01f\r\n"))
        XCTAssertTrue(offer.text.hasSuffix("a=sendonly\r\n"))
        XCTAssertFalse(self.offer.text.contains("m=video"), "no video unless a port is given")
        let audio = "v=0\nc=IN IP4 10.0.0.1\nm=audio 4000 RTP/AVP 0\n"
        let vp8 = try SDPAnswer(audio + "m=video 4002 RTP/AVP 100\nc=IN IP4 10.0.0.7\na=rtpmap:100 VP8/90000\n", offer: offer)
        let video = try XCTUnwrap(vp8.video)
        XCTAssertEqual([video.address, "\(video.port)", "\(video.rtcpPort)", video.codec.rawValue, "\(video.payloadType)"],
                       ["10.0.0.7", "4002", "4003", "VP8", "100"])
        XCTAssertEqual(vp8.address, "10.0.0.1", "the audio's address stays its own")
        XCTAssertNil(try SDPAnswer(audio + "m=video 0 RTP/AVP 96\n", offer: offer).video, "declined")
        XCTAssertNil(try SDPAnswer(audio + "m=video 4002 RTP/AVP 98\na=rtpmap:98 H265/90000\n", offer: offer).video, "no codec in common")
        XCTAssertNil(try SDPAnswer(audio + "m=video 4002 RTP/AVP 96\n", offer: self.offer).video, "not offered")
    }

    func testOpusUnderThePhonesOwnPayloadTypeAndG722() throws {
        let opus = try SDPAnswer("c=IN IP4 10.0.0.1\nm=audio 4000 RTP/AVP 96 101\na=rtpmap:96 opus/48000/2\na=rtpmap:101 telephone-event/8000\n", offer: offer)
        XCTAssertEqual(opus.codec, .opus)
        XCTAssertEqual(opus.payloadType, 96, "sent with the phone's number for it")
        let g722 = try SDPAnswer("c=IN IP4 10.0.0.1\nm=audio 4000 RTP/AVP 9 0\n", offer: offer)
        XCTAssertEqual(g722.codec, .g722)
        XCTAssertEqual(SIPCodec.g722.sampleRate, 16000)
        XCTAssertEqual(SIPCodec.g722.clockRate, 8000)
    }
}
