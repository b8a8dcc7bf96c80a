import CGStreamer
import XCTest
@testable import C1nkDoor
@testable import C1nkGLib
@testable import C1nkMedia
@testable import C1nkPipeline

final class WebRTCBinTests: XCTestCase {
    /// A session stopped while its answer is being created sets no local
    /// description: set on a closing webrtcbin, it would start ICE gathering
    /// (sockets, the agent's thread) that nobody ends.
    func testNoLocalDescriptionIsSetAfterTheSessionStops() throws {
        var doorOptions = DoorMediaSession.Options()
        doorOptions.ice = .loopback
        let door = try DoorMediaSession(options: doorOptions)
        defer { door.stop() }
        var offer: String?
        door.onOffer = { offer = $0 }
        waitUntil("the door's offer", timeout: 10) { offer != nil }

        let webrtc = try WebRTCBin(name: "stopping", ice: .loopback, latencyMilliseconds: 20, onNewStream: nil) { _ in }
        let pipeline = Pipeline(pipelineNamed: "stopping-call")
        pipeline.add(webrtc.webrtcbin)
        defer { pipeline.setState(GST_STATE_NULL) }
        XCTAssertTrue(pipeline.setState(GST_STATE_PLAYING))

        var result: Result<String, MediaError>?
        webrtc.setRemoteDescription(GST_WEBRTC_SDP_TYPE_OFFER, sdp: try XCTUnwrap(offer)) { error in
            XCTAssertNil(error)
            webrtc.createLocalDescription(GST_WEBRTC_SDP_TYPE_ANSWER) { result = $0 }
            webrtc.disconnect() // the session stops while webrtcbin creates the answer
        }
        waitUntil("the answer's outcome", timeout: 10) { result != nil }
        if case .success = result { XCTFail("an answer was set after the session stopped") }
        // A barrier, not a sleep: webrtcbin runs its operations one at a time,
        // in order, so once a get-stats asked now has replied, a
        // set-local-description asked before it has been applied.
        var drained: Bool?
        let barrier = Promise.make { replied, _ in MainContext.post { drained = replied } }
        c1nk_emit_pointer_pointer(webrtc.webrtcbin.object, "get-stats", nil, PointerCast.raw(barrier))
        gst_promise_unref(barrier)
        waitUntil("webrtcbin's earlier operations", timeout: 10) { drained != nil }
        XCTAssertEqual(drained, true, "webrtcbin ran the barrier after them (not interrupted)")
        let local = c1nk_object_get_object(webrtc.webrtcbin.object, "local-description")
        XCTAssertNil(local, "webrtcbin got a local description")
        if let local { gst_webrtc_session_description_free(local.assumingMemoryBound(to: GstWebRTCSessionDescription.self)) }
    }
}
