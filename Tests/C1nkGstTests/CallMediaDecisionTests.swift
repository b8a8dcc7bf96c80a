import CGStreamer
import XCTest
@testable import C1nkMedia

/// The call's media decisions on their own, without a pipeline: what an
/// offered m-line says, what the first packet of a door's stream and the
/// link of its pad call for, what a connection state means, where media
/// goes, what the answer says about the video, and which repair settings an
/// element gets.
final class CallMediaDecisionTests: XCTestCase {
    private static let offer = """
        v=0\r
        o=- 0 0 IN IP4 0.0.0.0\r
        s=-\r
        t=0 0\r
        m=audio 9 UDP/TLS/RTP/SAVPF 111\r
        a=mid:audio0\r
        a=rtpmap:111 OPUS/48000/2\r
        m=video 9 UDP/TLS/RTP/SAVPF 96 97 98 99\r
        a=mid:video0\r
        a=rtpmap:96 VP8/90000\r
        a=rtpmap:97 rtx/90000\r
        a=rtpmap:98 red/90000\r
        a=rtpmap:99 ulpfec/90000\r
        a=rtcp-fb:96 nack\r
        a=rtcp-fb:96 transport-cc\r
        a=extmap:3 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01\r

        """

    func testAnOfferedMediaLineIsReadFromItsAttributes() {
        let line = OfferSummary.MediaLine(
            kind: "audio", mid: "a0", rtpmap: ["111 opus/48000/2", "0 PCMU/8000", "112 OPUS/48000/2", "nonsense"],
            fmtp: ["111 minptime=10; useinbandfec=1", "x y=z"], rtcpFeedback: ["111 transport-cc", "111 NACK"],
            extmap: ["3 http://example/tcc", "4/sendrecv urn:x", "/5 urn:y", "15 urn:too-high"], firstFormat: "0")
        XCTAssertEqual(line.payloadTypes, ["OPUS": 111, "PCMU": 0], "the first payload type of a name is kept")
        XCTAssertEqual(line.codecs, ["OPUS", "PCMU"])
        XCTAssertEqual(line.encodings, [111: "OPUS", 0: "PCMU", 112: "OPUS"])
        XCTAssertEqual(line.formatParameters, [111: ["minptime": "10", "useinbandfec": "1"]])
        XCTAssertEqual(line.feedback, ["transport-cc", "nack"])
        XCTAssertEqual(line.extensions, [3: "http://example/tcc", 4: "urn:x"], "no id before the slash, or one above 14: ignored")
        XCTAssertEqual(line.preferredCodec, "PCMU", "the first format is the door's preference")
        XCTAssertEqual(line.mid, "a0")
    }

    func testTheFirstPacketOfAStreamSaysWhichOfTheDoorsStreamsItIs() throws {
        let streams = DoorStreams(offer: try OfferSummary(sdp: Self.offer))
        XCTAssertEqual(streams.voicePayloadTypes, [111])
        XCTAssertEqual(streams.videoPayloadTypes, [96, 97, 98, 99], "the video's repair streams are the video's")
        XCTAssertEqual(streams.firstPacket(payloadType: 111), .voice)
        XCTAssertEqual(streams.firstPacket(payloadType: 96), .video)
        XCTAssertEqual(streams.firstPacket(payloadType: 97), .video)
        XCTAssertEqual(streams.firstPacket(payloadType: 100), .other, "a stream the offer does not name")

        let declined = DoorStreams(videoPayloadTypes: [96], voicePayloadTypes: [0], playsVideo: false)
        XCTAssertEqual(declined.firstPacket(payloadType: 96), .other, "a declined video asks for no keyframe")
        XCTAssertEqual(declined.firstPacket(payloadType: 0), .voice)
    }

    func testAKeyframeIsAskedForAtTheVideoPadsLinkOnlyWhenNoneWasYet() {
        XCTAssertEqual(KeyframeAtLink(media: "video", linked: true, requestsSent: 0), .askNow)
        XCTAssertEqual(KeyframeAtLink(media: "video", linked: true, requestsSent: 1), .askedAtFirstPacket)
        XCTAssertEqual(KeyframeAtLink(media: "video", linked: false, requestsSent: 0), .nothing, "a pad that did not link")
        XCTAssertEqual(KeyframeAtLink(media: "audio", linked: true, requestsSent: 0), .nothing)
    }

    func testConnectionStatesMeanConnectedLostOrFailed() {
        XCTAssertEqual(ConnectionChange(GST_WEBRTC_PEER_CONNECTION_STATE_CONNECTED, wasConnected: false), .connected)
        XCTAssertEqual(ConnectionChange(GST_WEBRTC_PEER_CONNECTION_STATE_CONNECTED, wasConnected: true), .nothing)
        for state in [GST_WEBRTC_PEER_CONNECTION_STATE_DISCONNECTED, GST_WEBRTC_PEER_CONNECTION_STATE_FAILED,
                      GST_WEBRTC_PEER_CONNECTION_STATE_CLOSED] {
            XCTAssertEqual(ConnectionChange(state, wasConnected: true), .lost)
        }
        XCTAssertEqual(ConnectionChange(GST_WEBRTC_PEER_CONNECTION_STATE_FAILED, wasConnected: false), .failedToConnect)
        XCTAssertEqual(ConnectionChange(GST_WEBRTC_PEER_CONNECTION_STATE_DISCONNECTED, wasConnected: false), .nothing)
        XCTAssertEqual(ConnectionChange(GST_WEBRTC_PEER_CONNECTION_STATE_CONNECTING, wasConnected: false), .nothing)
    }

    func testTheDoorsMediaEntersItsInputOrADiscardingSink() {
        XCTAssertEqual(InputRoute(hasInput: true, decodable: true, offered: true), .input)
        XCTAssertEqual(InputRoute(hasInput: true, decodable: false, offered: true), .discard, "audio we cannot decode")
        XCTAssertEqual(InputRoute(hasInput: false, decodable: true, offered: true), .discard, "a description without the input")
        XCTAssertEqual(InputRoute(hasInput: false, decodable: true, offered: false), .none)
        XCTAssertEqual(MicrophoneRoute(audioLine: 0, decodable: true, canEncode: true), .door(mline: 0))
        XCTAssertEqual(MicrophoneRoute(audioLine: 0, decodable: true, canEncode: false), .discard(noSendCodec: true))
        XCTAssertEqual(MicrophoneRoute(audioLine: 0, decodable: false, canEncode: true), .discard(noSendCodec: false))
        XCTAssertEqual(MicrophoneRoute(audioLine: nil, decodable: true, canEncode: false), .discard(noSendCodec: false))
    }

    func testTheVideoAnswerNamesOneCodecAndTheRepairsTheDoorOffers() throws {
        let summary = try OfferSummary(sdp: Self.offer)
        let line = summary.lines[1]
        let answer = VideoAnswer(line: line, chosen: "VP8")
        XCTAssertTrue(answer.accepted)
        XCTAssertEqual(answer.preferences, "application/x-rtp,media=video,encoding-name=VP8,payload=96,clock-rate=90000,"
                       + "extmap-3=(string)\"\(OfferSummary.transportWideCCURI)\"")
        XCTAssertTrue(answer.retransmissions)
        XCTAssertTrue(answer.forwardErrorCorrection)

        let declined = VideoAnswer(line: line, chosen: nil)
        XCTAssertFalse(declined.accepted)
        XCTAssertEqual(declined.preferences, "application/x-rtp,media=video,encoding-name=VP8,payload=96,clock-rate=90000",
                       "a declined video's transceiver names the door's codec, with no extension")
        XCTAssertFalse(declined.retransmissions)
        XCTAssertFalse(declined.forwardErrorCorrection)
    }

    func testRepairSettingsByElement() {
        XCTAssertEqual(VideoRepair.settings(factory: "rtpsession", klass: "").map(\.property), ["rtcp-fraction"])
        XCTAssertEqual(VideoRepair.settings(factory: "rtpjitterbuffer", klass: "").map(\.property),
                       ["rtx-delay", "rtx-min-retry-timeout", "rtx-next-seqnum"])
        XCTAssertEqual(VideoRepair.settings(factory: "rtpvp8depay", klass: "Codec/Depayloader/Network/RTP").map(\.value), ["true", "true"])
        XCTAssertEqual(VideoRepair.settings(factory: "vp8dec", klass: "Codec/Decoder/Video").map(\.property),
                       ["discard-corrupted-frames", "automatic-request-sync-points", "min-force-key-unit-interval"])
        XCTAssertTrue(VideoRepair.settings(factory: "opusdec", klass: "Codec/Decoder/Audio").isEmpty)
    }

    func testTheRepairWindowStartsWiderOnlyWhereItHelps() {
        XCTAssertEqual(RepairWindow.initial(rendersAtOnce: true, doorRepairs: true, configured: 100, latency: 20), 100)
        XCTAssertNil(RepairWindow.initial(rendersAtOnce: false, doorRepairs: true, configured: 100, latency: 20), "--video-sync")
        XCTAssertNil(RepairWindow.initial(rendersAtOnce: true, doorRepairs: false, configured: 100, latency: 20), "no NACK")
        XCTAssertNil(RepairWindow.initial(rendersAtOnce: true, doorRepairs: true, configured: 20, latency: 20), "no wider than the latency")
    }

    func testRTPHeaderFieldsAndTheRecordingsBranchPoints() {
        XCTAssertEqual(RTPHeader.payloadType(secondByte: 0xE0), 96, "the marker bit is not the payload type's")
        XCTAssertEqual(RTPHeader.payloadType(secondByte: 111), 111)
        XCTAssertEqual(RTPHeader.ssrc([0x12, 0x34, 0x56, 0x78]), 0x1234_5678)
        XCTAssertTrue(RecordingBranch.isBranchPoint(sourcePads: 2, inBranch: false), "a tee")
        XCTAssertTrue(RecordingBranch.isBranchPoint(sourcePads: 1, inBranch: true))
        XCTAssertFalse(RecordingBranch.isBranchPoint(sourcePads: 1, inBranch: false))
    }

    func testLocalAddressesMustBeIPAddresses() {
        XCTAssertTrue(IceConfiguration.isIPAddress("127.0.0.1"))
        XCTAssertTrue(IceConfiguration.isIPAddress("::1"))
        XCTAssertTrue(IceConfiguration.isIPAddress("fe80::1"))
        XCTAssertFalse(IceConfiguration.isIPAddress("localhost"))
        XCTAssertFalse(IceConfiguration.isIPAddress("256.0.0.1"))
        XCTAssertFalse(IceConfiguration.isIPAddress(""))
    }
}
