import CGStreamer
import C1nkGLib
import CPlayoutDelay
import XCTest
@testable import C1nkMedia
@testable import C1nkViewers

/// The browser's WHEP offer read for the viewer, and the answer completed with candidates (pure).
final class WHEPOfferTests: XCTestCase {
    /// `h264`: each H.264 payload type's fmtp (42e01f, packetization-mode=1 when not given).
    static func offer(videoCodecs: [(Int, String)] = [(96, "VP8/90000"), (102, "H264/90000")], opus: Bool = true,
                      playoutDelay: Int? = nil, h264: [Int: String] = [:]) -> String {
        var lines = ["v=0", "o=- 1 2 IN IP4 127.0.0.1", "s=-", "t=0 0", "a=group:BUNDLE 0 1",
                     "m=video 9 UDP/TLS/RTP/SAVPF " + videoCodecs.map { String($0.0) }.joined(separator: " "),
                     "c=IN IP4 0.0.0.0", "a=ice-ufrag:abcd", "a=ice-pwd:abcdefghijklmnopqrstuvwx",
                     "a=fingerprint:sha-256 " + (0..<32).map { _ in "AB" }.joined(separator: ":"),
                     "a=setup:actpass", "a=mid:0", "a=recvonly", "a=rtcp-mux"]
        if let playoutDelay { lines.append("a=extmap:\(playoutDelay) " + WHEPOffer.playoutDelayURI) }
        for (pt, map) in videoCodecs {
            lines.append("a=rtpmap:\(pt) \(map)")
            if map.hasPrefix("H264") { lines.append("a=fmtp:\(pt) " + (h264[pt] ?? "level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f")) }
        }
        lines += ["m=audio 9 UDP/TLS/RTP/SAVPF 111", "c=IN IP4 0.0.0.0", "a=ice-ufrag:abcd", "a=ice-pwd:abcdefghijklmnopqrstuvwx",
                  "a=fingerprint:sha-256 " + (0..<32).map { _ in "AB" }.joined(separator: ":"),
                  "a=setup:actpass", "a=mid:1", "a=recvonly", "a=rtcp-mux"]
        if opus { lines.append("a=rtpmap:111 opus/48000/2") }
        return lines.joined(separator: "\r\n") + "\r\n"
    }

    func testTheDoorsCodecAndOpusAreFound() throws {
        let vp8 = try WHEPOffer(sdp: Self.offer(), videoCodec: "VP8")
        XCTAssertEqual(vp8.video, .init(index: 0, payloadType: 96))
        XCTAssertEqual(vp8.audio, .init(index: 1, payloadType: 111))
        let h264 = try WHEPOffer(sdp: Self.offer(videoCodecs: [(96, "VP8/90000"), (100, "H264/90000"), (102, "H264/90000")]), videoCodec: "H264")
        XCTAssertEqual(h264.video?.payloadType, 100)
        let audioOnly = try WHEPOffer(sdp: Self.offer(videoCodecs: [(98, "VP9/90000")]), videoCodec: "VP8")
        XCTAssertNil(audioOnly.video, "the door's codec is not offered: audio only")
    }

    /// Chromium's H.264 payload types, in its order: baseline first.
    static let chromiumH264: [Int: String] = [
        102: "level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42001f",
        103: "level-asymmetry-allowed=1;packetization-mode=0;profile-level-id=42001f",
        104: "level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f",
        106: "level-asymmetry-allowed=1;packetization-mode=0;profile-level-id=42e01f",
        108: "level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=4d001f",
        112: "level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=64001f",
    ]

    static func chromiumOffer(_ types: [Int] = [102, 103, 104, 106, 108, 112], opus: Bool = true) -> String {
        offer(videoCodecs: [(96, "VP8/90000")] + types.map { ($0, "H264/90000") }, opus: opus, h264: chromiumH264)
    }

    /// The door's constrained-baseline stream gets the browser's
    /// constrained-baseline payload type, not the first one (baseline):
    /// webrtcbin matches the profile names literally.
    func testAnH264DoorGetsThePayloadTypeOfItsProfile() throws {
        for profile in ["constrained-baseline", "baseline", "main", "high"] {
            let expected = ["constrained-baseline": 104, "baseline": 102, "main": 108, "high": 112][profile]
            let offer = try WHEPOffer(sdp: Self.chromiumOffer(), videoCodec: "H264", videoProfile: profile)
            XCTAssertEqual(offer.video?.payloadType, expected, profile)
            XCTAssertNil(offer.videoRefusal)
        }
        let c0 = Self.offer(videoCodecs: [(102, "H264/90000"), (125, "H264/90000")],
                            h264: [102: "packetization-mode=1;profile-level-id=42001f", 125: "profile-level-id=42c01f;packetization-mode=1"])
        XCTAssertEqual(try WHEPOffer(sdp: c0, videoCodec: "H264", videoProfile: "constrained-baseline").video?.payloadType, 125)
        XCTAssertEqual(try WHEPOffer(sdp: Self.chromiumOffer(), videoCodec: "H264").video?.payloadType, 102,
                       "the door's profile unknown: the first with packetization-mode=1")
    }

    func testAnH264DoorWhoseProfileTheBrowserLacksSendsAudioOnly() throws {
        let offer = try WHEPOffer(sdp: Self.chromiumOffer([102, 103, 108]), videoCodec: "H264", videoProfile: "constrained-baseline")
        XCTAssertNil(offer.video)
        XCTAssertEqual(offer.audio?.payloadType, 111)
        XCTAssertEqual(offer.videoRefusal, "the door's H.264 is constrained-baseline, and the browser offers only baseline, main")
        let modeZero = try WHEPOffer(sdp: Self.chromiumOffer([103, 106]), videoCodec: "H264", videoProfile: "constrained-baseline")
        XCTAssertNil(modeZero.video)
        XCTAssertEqual(modeZero.videoRefusal?.contains("packetization-mode=1"), true)
        XCTAssertThrowsError(try WHEPOffer(sdp: Self.chromiumOffer([102], opus: false), videoCodec: "H264", videoProfile: "high")) { error in
            XCTAssertTrue("\(error)".contains("the door's H.264 is high"), "\(error)")
        }
    }

    func testVP8IsUnchangedByProfiles() throws {
        let vp8 = try WHEPOffer(sdp: Self.chromiumOffer(), videoCodec: "VP8", videoProfile: "constrained-baseline")
        XCTAssertEqual(vp8.video, .init(index: 0, payloadType: 96))
        XCTAssertNil(vp8.videoRefusal)
        let none = try WHEPOffer(sdp: Self.offer(videoCodecs: [(98, "VP9/90000")]), videoCodec: "VP8")
        XCTAssertEqual(none.videoRefusal, "the browser does not offer VP8, the door's video")
    }

    /// The door's profile from what its RTP caps carry: the SPS of
    /// x264enc's constrained-baseline (as webrtcbin gives it), or a profile-level-id.
    func testTheDoorsH264ProfileIsReadFromItsCaps() {
        XCTAssertEqual(H264Profile.of(profile: nil, profileLevelId: nil,
                                      spropParameterSets: "Z0LAHtoCgPbAWoMDA1KAAAADAIAAAB5HixdQ,aM48gA=="), "constrained-baseline")
        XCTAssertEqual(H264Profile.of(profile: nil, profileLevelId: nil, spropParameterSets: "aM48gA==,Z2QAH6zZQFAFuhAAAAMAEAAAAwPI8YMZYA"), "high")
        XCTAssertEqual(H264Profile.of(profile: nil, profileLevelId: "42e01f", spropParameterSets: nil), "constrained-baseline")
        XCTAssertEqual(H264Profile.of(profile: "main", profileLevelId: "42e01f", spropParameterSets: nil), "main")
        for (id, name) in [("42c01e", "constrained-baseline"), ("42001f", "baseline"), ("4d001f", "main"), ("64001f", "high"),
                           ("640c1f", "constrained-high"), ("f4001f", "high-4:4:4")] {
            XCTAssertEqual(H264Profile.name(profileLevelId: id), name, id)
        }
        XCTAssertNil(H264Profile.name(profileLevelId: "zz"))
        XCTAssertNil(H264Profile.of(profile: nil, profileLevelId: nil, spropParameterSets: "not base64"))
    }

    func testThePlayoutDelayExtensionIsFoundOnTheVideoLine() throws {
        XCTAssertNil(try WHEPOffer(sdp: Self.offer(), videoCodec: "VP8").video?.playoutDelayExtension)
        XCTAssertEqual(try WHEPOffer(sdp: Self.offer(playoutDelay: 5), videoCodec: "VP8").video?.playoutDelayExtension, 5)
        let directional = Self.offer().replacingOccurrences(of: "a=mid:0\r\n", with: "a=mid:0\r\na=extmap:7/recvonly \(WHEPOffer.playoutDelayURI)\r\n")
        XCTAssertEqual(try WHEPOffer(sdp: directional, videoCodec: "VP8").video?.playoutDelayExtension, 7)
    }

    /// The probe's work on one packet: a one-byte extension with the id,
    /// 12 bits of minimum and 12 of maximum in 10 ms units, the payload untouched.
    func testAPacketIsMarkedWithItsPlayoutDelay() throws {
        GStreamer.initialize()
        XCTAssertEqual(try Self.marked(minimum: 0, maximum: 100), [0, 0, 10], "0 to 100 ms")
        XCTAssertEqual(try Self.marked(minimum: 80, maximum: 200), [0, 0x80, 20], "80 (8 units) to 200 ms (20)")
        XCTAssertEqual(try Self.marked(minimum: 300, maximum: 200), [1, 0x40, 20], "a minimum is never above the maximum")
        XCTAssertNil(c1nk_playout_delay_attach(gst_pad_new("src", GST_PAD_SRC), 15, 0, 100), "ids above 14 need the two-byte form")
    }

    private static func marked(minimum: guint, maximum: guint) throws -> [UInt8]? {
        let buffer = try XCTUnwrap(gst_rtp_buffer_new_allocate(4, 0, 0))
        defer { gst_buffer_unref(buffer) }
        gst_buffer_fill(buffer, 12, [1, 2, 3, 4] as [UInt8], 4)
        XCTAssertEqual(c1nk_playout_delay_mark(buffer, 5, minimum, maximum), 1)
        var rtp = GstRTPBuffer()
        XCTAssertEqual(gst_rtp_buffer_map(buffer, GST_MAP_READ, &rtp), 1)
        defer { gst_rtp_buffer_unmap(&rtp) }
        var data: gpointer?
        var size: guint = 0
        XCTAssertEqual(gst_rtp_buffer_get_extension_onebyte_header(&rtp, 5, 0, &data, &size), 1)
        XCTAssertEqual(size, 3)
        let payload = gst_rtp_buffer_get_payload(&rtp).map { Array(UnsafeBufferPointer(start: $0.assumingMemoryBound(to: UInt8.self), count: 4)) }
        XCTAssertEqual(payload, [1, 2, 3, 4])
        return data.map { Array(UnsafeBufferPointer(start: $0.assumingMemoryBound(to: UInt8.self), count: 3)) }
    }

    func testMalformedOffersAreRefused() {
        for bad in ["", "hello", "v=0\r\nnot a line\r\n", "v=1\r\n", "v=0\r\ns=-\r\n",
                    Self.offer(videoCodecs: [(98, "VP9/90000")], opus: false), String(repeating: "v=0\r\n", count: 20_000)] {
            XCTAssertThrowsError(try WHEPOffer(sdp: bad, videoCodec: "VP8"), bad.prefix(40).description)
        }
    }

    func testTheAnswerCarriesItsCandidatesInTheirSections() {
        let answer = "v=0\r\ns=-\r\nm=video 9 X 96\r\na=mid:0\r\nm=audio 9 X 111\r\na=mid:1\r\n"
        let full = WHEPOffer.answer(answer, with: [(0, "candidate:1 1 UDP 2 127.0.0.1 5000 typ host")])
        let lines = full.components(separatedBy: "\r\n")
        XCTAssertEqual(lines[4], "a=candidate:1 1 UDP 2 127.0.0.1 5000 typ host")
        XCTAssertEqual(lines[5], "a=end-of-candidates")
        XCTAssertEqual(lines.filter { $0 == "a=end-of-candidates" }.count, 2)
        XCTAssertTrue(full.hasSuffix("a=end-of-candidates\r\n"))
    }
}
