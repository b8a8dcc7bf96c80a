import CGStreamer
@testable import C1nkDoor
@testable import C1nkGLib
@testable import C1nkMedia
@testable import C1nkPipeline
import XCTest

/// The next call's pipeline, built from its text before the offer
/// (`CallPipelineStandby`): taken by a call that fits it, dropped otherwise,
/// never kept for a recording, gone after `discard`.
final class CallPipelineStandbyTests: XCTestCase {
    override func tearDown() {
        CallPipelineStandby.discard()
        super.tearDown()
    }

    func testAStandbyIsTakenOnlyByTheSameTextAndNeverKeptForARecording() throws {
        GStreamer.initialize()
        let display = try PipelineDescription.load("display")
        var values = MediaConfiguration().userValues
        values["sink"] = "fakesink"
        values["audio-source"] = "audiotestsrc is-live=true"
        values["audio-sink"] = "fakesink"
        values["audio-encoder"] = PipelineDescription.standInValues["audio-encoder"]
        CallPipelineStandby.prepare(display, values: values)
        XCTAssertTrue(CallPipelineStandby.isReady)
        var other = values
        other["audio-encoder"] = "mulawenc ! rtppcmupay pt=0"
        XCTAssertNil(CallPipelineStandby.take(display, values: other), "another audio encoder is another pipeline")
        XCTAssertFalse(CallPipelineStandby.isReady, "an unfit standby is dropped")

        CallPipelineStandby.prepare(display, values: values)
        let taken = try XCTUnwrap(CallPipelineStandby.take(display, values: values))
        XCTAssertFalse(CallPipelineStandby.isReady)
        XCTAssertNotNil(taken.pipeline.element(named: "video-out"))
        XCTAssertEqual(taken.pipeline.currentState, GST_STATE_NULL, "a standby holds no device, thread or socket: it stays in NULL")
        taken.release()

        let recording = try PipelineDescription.load("display-record")
        CallPipelineStandby.prepare(recording, values: values.merging(["record-location": "/tmp/x.mkv", "record-muxer": "matroskamux"]) { $1 })
        XCTAssertFalse(CallPipelineStandby.isReady, "a recording's file is the call's own")
        CallPipelineStandby.prepare(display, values: values)
        CallPipelineStandby.discard()
        XCTAssertFalse(CallPipelineStandby.isReady)
    }

    /// A real call leaves the next one its pipeline; the next call takes it
    /// and its video plays.
    func testTheNextCallTakesTheStandbyBuiltAfterACall() throws {
        CallPipelineStandby.discard()
        let first = try call()
        XCTAssertFalse(first.fromStandby)
        waitUntil("the standby after the first call") { CallPipelineStandby.isReady }
        let second = try call()
        XCTAssertTrue(second.fromStandby, "the second call's pipeline was built before its offer")
        XCTAssertGreaterThan(second.frames, 5)
    }

    private func call() throws -> (fromStandby: Bool, frames: Int) {
        var doorOptions = DoorMediaSession.Options()
        doorOptions.ice = .loopback
        let door = try DoorMediaSession(options: doorOptions)
        var answerer: AnswerSession?
        door.onOffer = { offer in
            answerer = try? AnswerSession(callId: "c", offer: offer, configuration: MediaSessionTests.testConfiguration(), audioEnabled: false)
            answerer?.onAnswer = { door.applyAnswer($0) }
            answerer?.onLocalCandidate = { door.addRemoteCandidate($0) }
            answerer?.onFailure = { XCTFail($0) }
        }
        door.onLocalCandidate = { answerer?.addRemoteCandidate($0) }
        door.onFailure = { XCTFail("door: \($0)") }
        waitUntil("frames", timeout: 10) { (answerer?.framesRendered ?? 0) > 5 }
        let result = (answerer?.builtFromStandby ?? false, answerer?.framesRendered ?? 0)
        answerer?.stop()
        door.stop()
        return result
    }
}
