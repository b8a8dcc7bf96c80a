import CGStreamer
import XCTest
@testable import C1nkAnswerer
@testable import C1nkGLib
@testable import C1nkMedia
@testable import C1nkPipeline

/// GLib criticals counted while a test runs (the fuzzer treats them as crashes).
nonisolated(unsafe) private var criticals = 0

/// Every input that crashed `scripts/fuzz`, run through the same path
/// (`FuzzInput`), plus the seed corpus.
final class FuzzRegressionTests: XCTestCase {
    private func assertNoCriticals(_ input: String, file: StaticString = #filePath, line: UInt = #line) {
        GStreamer.initialize()
        criticals = 0
        let domains: [String] = ["GStreamer-SDP", "GStreamer", "GLib", "GLib-GObject"]
        let handlers = domains.map { domain -> (String, guint) in
            (domain, g_log_set_handler(domain, GLogLevelFlags(rawValue: G_LOG_LEVEL_CRITICAL.rawValue), { _, _, _, _ in
                criticals += 1
            }, nil))
        }
        FuzzInput.run(input)
        for (domain, id) in handlers { g_log_remove_handler(domain, id) }
        XCTAssertEqual(criticals, 0, "GLib criticals for input \(input.debugDescription)", file: file, line: line)
    }

    /// crash-da39a3ee…: an empty text as an offer made gst_sdp_message_new_from_text assert.
    func testEmptyOfferIsAnErrorNotAnAssertion() {
        assertNoCriticals("")
        assertNoCriticals("\0v=0")
        assertNoCriticals(#"{"type":"offer","callId":"c","sdp":""}"#)
        XCTAssertThrowsError(try OfferSummary(sdp: "")) { XCTAssertEqual("\($0)", "\(MediaError.negotiation("the door's offer is empty"))") }
    }

    /// crash-fd2f7de0…: an rtpmap encoding name full of colons and a carriage
    /// return reached gst_caps_from_string and made it assert.
    func testAnEncodingNameThatIsNoTokenPlaysNothing() {
        XCTAssertNil(CodecSupport.playable("P::::;::CMU/\r8100", media: "audio"))
        XCTAssertNil(CodecSupport.playable("VP8, clock-rate=1", media: "video"))
        XCTAssertNil(CodecSupport.playable("", media: "video"))
        XCTAssertNotNil(CodecSupport.playable("VP8", media: "video"))
        let offer = "v=0\r\no=- 1 0 IN IP4 0.0.0.0\r\ns=-\r\nt=0 0\r\nm=audio 9 UDP/TLS/RTP/SAVPF 0\r\n"
            + "c=IN IP4 0.0.0.0\r\na=mid:0\r\na=rtpmap:0 P::::::::;:::CMU/8100\r\n"
        assertNoCriticals(offer)
    }

    /// crash-3c6fa960…: an `a=extmap:/` (no id before the direction's slash)
    /// indexed an empty split.
    func testAnExtmapWithoutAnIdIsIgnored() throws {
        let offer = "v=0\r\no=- 1 0 IN IP4 0.0.0.0\r\ns=-\r\nt=0 0\r\nm=video 9 UDP/TLS/RTP/SAVPF 96\r\n"
            + "c=IN IP4 0.0.0.0\r\na=mid:0\r\na=rtpmap:96 VP8/90000\r\na=rtcp-fb:96 transport-cc\r\n"
            + "a=extmap:/ 4drecv\r\na=extmap:/\r\na=extmap:\u{a1}\u{a1} x\r\n"
            + "a=extmap:3/recvonly http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01\r\n"
        assertNoCriticals(offer)
        let summary = try OfferSummary(sdp: offer)
        XCTAssertEqual(summary.lines.first?.transportWideCCExtension, 3, "the well-formed one is kept")
    }

    func testSeedCorpusRunsClean() throws {
        let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Fuzz/corpus").standardized.path
        let files = try FileManager.default.contentsOfDirectory(atPath: directory)
        XCTAssertGreaterThan(files.count, 20)
        for file in files {
            // Bytes as the fuzzer gives them: some seeds are not UTF-8 on purpose.
            let bytes = try Data(contentsOf: URL(fileURLWithPath: directory + "/" + file))
            assertNoCriticals(String(decoding: bytes, as: UTF8.self))
        }
    }
}
