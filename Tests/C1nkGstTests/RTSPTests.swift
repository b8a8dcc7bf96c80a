import XCTest
import CGStreamer
import Synchronization
@testable import C1nkDoor
@testable import C1nkProbes
@testable import C1nkAnswerer
@testable import C1nkGLib
@testable import C1nkMedia
@testable import C1nkRTSP

/// The door live over RTSP with a real client (`rtspsrc`), during real calls
/// from the simulated door: frames decoded, the login required, the audio
/// held back until accept, a clear error between calls.
final class RTSPTests: XCTestCase {
    private var restream: RTSPRestream!
    private var harness: CallHarness!

    private func start(_ access: RTSPAccess = .login(user: "hall", password: "s3cret pw"),
                       codec: DoorMediaSession.VideoCodec = .vp8,
                       door: (inout DoorMediaSession.Options) -> Void = { _ in }) throws {
        restream = try RTSPRestream(settings: RTSPSettings(port: 0, access: access))
        let restream = self.restream!
        harness = try CallHarness(codec: codec, door: door, makeMedia: restream.mediaFactory()) { _ in }
        harness.events.onEvent = { event, _ in restream.handle(event) }
    }

    override func tearDown() {
        harness?.stop()
        harness = nil
        restream = nil
        super.tearDown()
    }

    private func url(_ login: String? = "hall:s3cret%20pw@") -> String {
        "rtsp://\(login ?? "")127.0.0.1:\(restream.port)/door"
    }

    private func ringUntilFirstFrame() {
        harness.door.ring()
        waitUntil("the call's first frame", timeout: 10) { self.harness.count("first-frame") == 1 }
    }

    /// What a client that decoded too little got, for the failure's output.
    private func describe(_ client: RTSPClient) -> String {
        "client: \(client.error() ?? "no error"); \(client.videoPackets.value.load(ordering: .relaxed)) video packets in, "
            + "\(client.frames.value.load(ordering: .relaxed)) frames decoded, \(client.audioBuffers) audio buffers; "
            + "restream packets \(restream.packets)"
    }

    private func waitForError(_ client: RTSPClient, _ what: String) -> String {
        var text: String?
        waitUntil(what, timeout: 8) { text = client.error(); return text != nil }
        return text ?? ""
    }

    func testAClientDecodesTheCallAndHearsTheDoorOnlyAfterAccept() throws {
        try start()
        ringUntilFirstFrame()
        let client = try RTSPClient(url: url())
        if !waitUntil("frames decoded from rtsp://…/door", timeout: 8, { client.frames.value.load(ordering: .relaxed) >= 15 }) {
            print(describe(client))
        }
        if !waitUntil("the door's audio track playing", timeout: 5, { client.audioBuffers >= 20 }) { print(describe(client)) }
        XCTAssertLessThan(client.audioPeak, 33, "before accept, the restream's audio is silence (the speaker's gate)")
        XCTAssertNil(harness.answerer.command("a"))
        waitUntil("the door's voice after accept", timeout: 5) { client.audioPeak > 3000 }
        XCTAssertGreaterThan(restream.packets.video, 15)
        XCTAssertNil(harness.answerer.command("h"))
        waitUntil("the call's end") { self.harness.count("ended") == 1 }
        XCTAssertNil(restream.callId, "unmounted at the end")
    }

    func testWithoutTheLoginTheClientIsRefusedAndBetweenCallsTheMountIsNotFound() throws {
        try start()
        // Between calls: authenticated, and told there is nothing to watch.
        let early = try RTSPClient(url: url())
        XCTAssertTrue(waitForError(early, "an error between calls").contains("404"), "404 Not Found between calls")
        ringUntilFirstFrame()
        let anonymous = try RTSPClient(url: url(nil))
        XCTAssertTrue(waitForError(anonymous, "refused without a login").contains("401"))
        let wrong = try RTSPClient(url: url("hall:wrong@"))
        XCTAssertTrue(waitForError(wrong, "refused with a wrong password").contains("401"))
        XCTAssertEqual(anonymous.frames.value.load(ordering: .relaxed), 0)
        // The same call serves the right login.
        let right = try RTSPClient(url: url())
        if !waitUntil("frames with the login", timeout: 8, { right.frames.value.load(ordering: .relaxed) >= 5 }) {
            print(describe(right))
        }
    }

    func testH264IsRestreamedAsReceived() throws {
        try start(.anonymous, codec: .h264)
        ringUntilFirstFrame()
        let client = try RTSPClient(url: url(nil), protocols: "udp")
        let decoded = waitUntil("H.264 frames decoded over UDP", timeout: 8) { client.frames.value.load(ordering: .relaxed) >= 15 }
        if !decoded { print(describe(client)) }
    }

    func testAccessOptionsThatDoNotGoTogether() {
        XCTAssertNil(RTSPAccess.usageProblem(port: nil, user: false, passwordFile: false, anonymous: false))
        XCTAssertNil(RTSPAccess.usageProblem(port: 8554, user: true, passwordFile: true, anonymous: false))
        XCTAssertNil(RTSPAccess.usageProblem(port: 8554, user: false, passwordFile: false, anonymous: true))
        XCTAssertTrue(RTSPAccess.usageProblem(port: 8554, user: false, passwordFile: false, anonymous: false)?
            .contains("--rtsp-anonymous") == true)
        XCTAssertNotNil(RTSPAccess.usageProblem(port: 8554, user: true, passwordFile: false, anonymous: false))
        XCTAssertNotNil(RTSPAccess.usageProblem(port: 8554, user: true, passwordFile: true, anonymous: true))
        XCTAssertNotNil(RTSPAccess.usageProblem(port: nil, user: true, passwordFile: false, anonymous: false))
        XCTAssertEqual(RestreamMedia(videoCodec: "VP8", audioCodec: "OPUS")?.silence, "opus")
        XCTAssertTrue(RestreamMedia(videoCodec: "H264", audioCodec: nil)?.launch.contains("rtph264pay") == true)
        XCTAssertNil(RestreamMedia(videoCodec: "AV1", audioCodec: "G722"))
    }

    func testAClientsPadsAreToldApartByTheRestreamsPayloadTypes() throws {
        let media = try XCTUnwrap(RestreamMedia(videoCodec: "VP8", audioCodec: "OPUS"))
        XCTAssertTrue(media.launch.contains("name=pay0 pt=96") && media.launch.contains("name=pay1 pt=97"))
        XCTAssertEqual(RestreamMedia.carriesVideo(rtspsrcPad: "recv_rtp_src_0_818235163_96"), true)
        XCTAssertEqual(RestreamMedia.carriesVideo(rtspsrcPad: "recv_rtp_src_1_4185265672_97"), false)
        XCTAssertNil(RestreamMedia.carriesVideo(rtspsrcPad: "recv_rtp_src_0_818235163_100"))
        XCTAssertNil(RestreamMedia.carriesVideo(rtspsrcPad: "send_rtcp_src_0"))
    }
}

extension RTSPTests {
    func testAClientThatNeverReadsStallsNeitherTheCallNorTheOtherClients() throws {
        try start(.anonymous)
        ringUntilFirstFrame()
        let stalled = RTSPStalledClient(port: restream.port)
        waitUntil("the stalled client playing", timeout: 8) { stalled.playing || stalled.failure != nil }
        XCTAssertNil(stalled.failure)
        let session = try XCTUnwrap(harness.answerer.currentSession)
        // Its buffers fill within seconds of video (some 100 kB a second against its few kB and the server's socket buffer).
        let pushed = restream.packets.video
        waitUntil("its receive buffer full", timeout: 5) { stalled.unread >= 2048 }
        waitUntil("seconds of video pushed to the media", timeout: 8) { self.restream.packets.video > pushed + 200 }
        let shown = session.framesRendered
        let other = try RTSPClient(url: url(nil))
        if !waitUntil("another client's frames", timeout: 8, { other.frames.value.load(ordering: .relaxed) >= 30 }) {
            print(describe(other))
        }
        XCTAssertGreaterThan(session.framesRendered, shown + 20, "the call goes on showing the door")
        withExtendedLifetime(stalled) {}
    }
}

extension RTSPTests {
    /// A WebRTC door sends a keyframe only when asked, and may drop a request
    /// (one too soon after another, a lost PLI): a client that joined must
    /// not wait for the next call.
    func testAKeyframeRequestTheDoorDropsIsAskedAgain() throws {
        try start(.anonymous) { $0.adaptsToFeedback = true }
        ringUntilFirstFrame()
        let session = try XCTUnwrap(harness.answerer.currentSession)
        let webrtcOutput = try XCTUnwrap(session.receivedStreams.video?.peer)
        let dropped = Atomic<Int>(0)
        let probe = webrtcOutput.addProbe(GST_PAD_PROBE_TYPE_EVENT_UPSTREAM) { info in
            guard let event = info.pointee.data?.assumingMemoryBound(to: GstEvent.self),
                  gst_video_event_is_force_key_unit(event) != 0,
                  dropped.compareExchange(expected: 0, desired: 1, ordering: .relaxed).exchanged else { return GST_PAD_PROBE_OK }
            return GST_PAD_PROBE_DROP
        }
        defer { webrtcOutput.removeProbe(probe) }
        let client = try RTSPClient(url: url(nil))
        let decoded = waitUntil("frames after a second request", timeout: 8) { client.frames.value.load(ordering: .relaxed) >= 5 }
        XCTAssertEqual(dropped.load(ordering: .relaxed), 1, "the client's first keyframe request was dropped")
        if !decoded { print(describe(client)) }
    }
}
