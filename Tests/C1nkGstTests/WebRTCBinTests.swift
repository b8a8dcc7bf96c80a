import CGStreamer
import XCTest
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

        let webrtc = try WebRTCBin(name: "stopping", ice: .loopback, latencyMilliseconds: 20) { _ in }
        let pipeline = gst_pipeline_new("stopping-call")!
        gst_bin_add(UnsafeMutableRawPointer(pipeline).assumingMemoryBound(to: GstBin.self), webrtc.element)
        defer {
            gst_element_set_state(pipeline, GST_STATE_NULL)
            gst_object_unref(UnsafeMutableRawPointer(pipeline))
        }
        XCTAssertNotEqual(gst_element_set_state(pipeline, GST_STATE_PLAYING), GST_STATE_CHANGE_FAILURE)

        var result: Result<String, MediaError>?
        webrtc.setRemoteDescription(GST_WEBRTC_SDP_TYPE_OFFER, sdp: try XCTUnwrap(offer)) { error in
            XCTAssertNil(error)
            webrtc.createLocalDescription(GST_WEBRTC_SDP_TYPE_ANSWER) { result = $0 }
            webrtc.disconnect() // the session stops while webrtcbin creates the answer
        }
        waitUntil("the answer's outcome", timeout: 10) { result != nil }
        if case .success = result { XCTFail("an answer was set after the session stopped") }
        MainContext.spin(0.3)
        let local = c1nk_object_get_object(UnsafeMutableRawPointer(webrtc.element), "local-description")
        XCTAssertNil(local, "webrtcbin got a local description")
        if let local { gst_webrtc_session_description_free(local.assumingMemoryBound(to: GstWebRTCSessionDescription.self)) }
    }
}
