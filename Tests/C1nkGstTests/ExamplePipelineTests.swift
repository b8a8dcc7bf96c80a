import CGStreamer
import Foundation
import XCTest
@testable import C1nkMedia
@testable import C1nkPipeline

/// The worked examples of docs/pipelines.md, run in real calls.
final class ExamplePipelineTests: XCTestCase {
    static let examples = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("docs/examples").path

    func harness(_ name: String, record: String? = nil) throws -> CallHarness {
        let pipeline = try PipelineDescription.load(Self.examples + "/\(name).pipeline")
        let recording = try record.map { try RecordingTarget($0) }
        try pipeline.validate(["sink": "fakesink", "audio-source": "audiotestsrc", "audio-sink": "fakesink"], recording: record != nil)
        return try CallHarness { options in
            options.answerMode = .auto
            options.media.pipeline = pipeline
            options.media.recording = recording
        }
    }

    func testSmallPanelScalesTo800x480() throws {
        let harness = try harness("small-panel")
        defer { harness.stop() }
        harness.door.ring()
        waitUntil("frames", timeout: 10) { (harness.answerer.currentSession?.framesRendered ?? 0) > 10 }
        let caps = try XCTUnwrap(harness.answerer.currentSession?.videoOutCaps)
        XCTAssertTrue(caps.contains("width=(int)800") && caps.contains("height=(int)480"), caps)
    }

    func testRecordVideoOnly() throws {
        let directory = temporaryDirectory()
        let harness = try harness("record-video-only", record: directory + "/video.mkv")
        defer { harness.stop() }
        harness.door.ring()
        waitUntil("frames", timeout: 10) { (harness.answerer.currentSession?.framesRendered ?? 0) > 40 }
        XCTAssertNil(harness.answerer.command("hangup"))
        waitUntil("recorded", timeout: 5) { harness.count("recorded") == 1 }
        let file = try MediaFile(directory + "/video.mkv")
        XCTAssertTrue(file.videoCaps?.hasPrefix("video/x-vp8") ?? false)
        XCTAssertNil(file.audioCaps)
        XCTAssertGreaterThan(file.decodedFrames, 30)
    }

    func testRestreamSendsTheDoorsRTPToALocalPort() throws {
        var error: UnsafeMutablePointer<GError>?
        let receiver = gst_parse_launch("udpsrc port=5004 ! fakesink name=out sync=false", &error)!
        XCTAssertNil(error)
        defer {
            gst_element_set_state(receiver, GST_STATE_NULL)
            gst_object_unref(UnsafeMutableRawPointer(receiver))
        }
        let packets = countBuffers(atElementNamed: "out", in: receiver)
        gst_element_set_state(receiver, GST_STATE_PLAYING)

        let harness = try harness("restream")
        defer { harness.stop() }
        harness.door.ring()
        waitUntil("frames on screen", timeout: 10) { (harness.answerer.currentSession?.framesRendered ?? 0) > 20 }
        waitUntil("RTP on port 5004") { packets.value.load(ordering: .relaxed) > 20 }
    }
}
