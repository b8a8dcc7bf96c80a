import Foundation
import XCTest
@testable import C1nkDoor
@testable import C1nkGLib
@testable import C1nkMedia
@testable import C1nkViewers

/// A browser on a lossy link: headless Chromium watching a viewer of a call
/// in this process, with some of the viewer's video packets lost on their
/// way to it (between webrtcbin's RTX sender and its transport). The browser
/// asks for them again (NACK), the viewer resends them (RTX), and the video
/// goes on; its reports of the loss raise the playout delay it is asked for.
final class ViewerRetransmissionTests: XCTestCase {
    override func setUp() { Log.echoToStandardError = false }
    override func tearDown() { Log.echoToStandardError = true }

    /// The page's offer (video only, receive-only, as the web page's), once ICE gathering is done.
    static let offer = """
        (async () => {
          const pc = new RTCPeerConnection(); window.pc = pc;
          pc.addTransceiver("video", { direction: "recvonly" });
          pc.ontrack = (event) => {
            const video = document.createElement("video"); video.id = "video"; video.muted = true; video.autoplay = true;
            document.body.appendChild(video); video.srcObject = new MediaStream([event.track]); video.play().catch(() => {});
          };
          await pc.setLocalDescription(await pc.createOffer());
          await new Promise((resolve) => {
            if (pc.iceGatheringState === "complete") return resolve();
            pc.onicegatheringstatechange = () => { if (pc.iceGatheringState === "complete") resolve(); };
            setTimeout(resolve, 2000);
          });
          return pc.localDescription.sdp; })()
        """

    /// The browser's inbound video, as JSON (`pc.getStats()`), and the frames its video element got.
    static let videoStats = """
        (async () => { const stats = await window.pc.getStats(); let video = {};
          stats.forEach((r) => { if (r.type === "inbound-rtp" && r.kind === "video") video = r; });
          const element = document.getElementById("video");
          video.shown = element ? element.getVideoPlaybackQuality().totalVideoFrames : 0;
          return JSON.stringify(video); })()
        """

    func testAVP8ViewerResendsWhatTheBrowserLost() throws { try resends(codec: .vp8) }

    func testAnH264ViewerResendsWhatTheBrowserLost() throws { try resends(codec: .h264) }

    /// Two Chromium viewers of a VP8 door (which once decoded nothing with NACK on), each on a lossy link of its own.
    func testTwoVP8ViewersEachResendWhatTheirBrowserLost() throws { try resends(codec: .vp8, viewers: 2) }

    private func resends(codec: DoorMediaSession.VideoCodec, viewers count: Int = 1) throws {
        guard BrowserDoor.executable != nil else { throw XCTSkip("headless Chromium is not installed") }
        var door = DoorMediaSession.Options()
        door.codec = codec
        let call = try AudioLoopback(door: door)
        defer { call.stop() }
        call.waitForVideo()
        let tap = CallTap(session: try XCTUnwrap(call.session))
        defer { tap.stop() }
        waitUntil("the door's media flow to the tap") { tap.caps(for: "video") != nil }

        // Pages of a loopback origin (a secure context) to run the offers in.
        let server = try WebTestServer.make(plainHTTP: true)
        defer { server.stop() }
        let browser = try DevToolsBrowser()
        defer { browser.stop() }
        var viewers: [(page: DevToolsBrowser.Page, viewer: BrowserViewer, link: ImpairedLink)] = []
        defer { for item in viewers { item.viewer.close("the test ended") } }
        for index in 0..<count {
            let page = try browser.open("http://127.0.0.1:\(server.port)/")
            waitUntil("the page") { page.string("document.title") == "c1nk" && page.string("document.readyState") == "complete" }
            let offer = try XCTUnwrap(page.evaluate(Self.offer) as? String)
            let viewer = try BrowserViewer(id: "lossy\(index)", offer: offer, tap: tap, ice: .loopback)
            let videoType = try XCTUnwrap(WHEPOffer(sdp: offer, videoCodec: tap.videoEncoding, videoProfile: tap.videoProfile).video).payloadType
            // One video packet in twenty lost on its first send; retransmissions pass.
            var impairment = NetworkImpairment()
            impairment.lossPercent = 5
            impairment.seed = UInt64(index + 1)
            let link = ImpairedLink(impairment)
            link.setPayloadTypes(video: [videoType], retransmission: [])
            viewer.auxSender = { link.makeElement() }
            viewers.append((page, viewer, link))
            var answer: String?
            viewer.start { result in
                switch result {
                case .success(let sdp): answer = sdp
                case .failure(let error): XCTFail("\(error)")
                }
            }
            waitUntil("the viewer's answer") { answer != nil }
            let sdp = try XCTUnwrap(answer)
            // The answer's RTX: a payload type of its own whose apt is the video's.
            let retransmission = Self.retransmissionTypes(sdp, for: videoType)
            XCTAssertFalse(retransmission.isEmpty, "the answer has rtx/90000 with apt=\(videoType): \(sdp)")
            XCTAssertTrue(sdp.contains("a=rtcp-fb:\(videoType) nack\r\n"), "the answer asks for NACKs on the video")
            link.setPayloadTypes(video: [videoType], retransmission: Set(retransmission))
            let json = try JSONSerialization.data(withJSONObject: ["type": "answer", "sdp": sdp])
            _ = try page.evaluate("window.pc.setRemoteDescription(\(String(decoding: json, as: UTF8.self))).then(() => 'ok')")
        }

        for (index, (page, viewer, link)) in viewers.enumerated() {
            var stats: [String: Any] = [:]
            func count(_ key: String) -> Int { (stats[key] as? NSNumber)?.intValue ?? 0 }
            func read() { stats = (try? JSONSerialization.jsonObject(with: Data(page.string(Self.videoStats).utf8))) as? [String: Any] ?? [:] }
            waitUntil("browser \(index) asked again for lost packets and got them", timeout: 20) {
                read()
                return count("nackCount") > 0 && count("retransmittedPacketsReceived") > 0 && count("framesDecoded") > 90
            }
            waitUntil("browser \(index)'s video element shows the frames") {
                read()
                return count("shown") > 60
            }
            let counted = link.counted
            print("viewer retransmissions (\(codec), viewer \(index + 1) of \(viewers.count)): \(counted.videoDropped) of "
                  + "\(counted.videoSent) video packets lost, \(counted.retransmissions) resent; the browser: \(count("nackCount")) NACKs, "
                  + "\(count("retransmittedPacketsReceived")) retransmissions received, \(count("packetsLost")) packets lost, "
                  + "\(count("framesDecoded")) frames decoded (\(count("keyFramesDecoded")) keyframes), \(count("freezeCount")) freezes, "
                  + "\(count("pliCount")) PLIs; \(viewer.keyframeRequests) keyframe requests, \(viewer.framesHeldForKeyframe) frames held")
            XCTAssertGreaterThan(counted.videoDropped, 0, "packets were lost on the way")
            XCTAssertGreaterThan(counted.retransmissions, 0, "the viewer resent them as RTX")
            XCTAssertGreaterThan(count("nackCount"), 0)
            XCTAssertGreaterThan(count("retransmittedPacketsReceived"), 0)
            XCTAssertNotEqual(stats["trackIdentifier"] as? String ?? "", "", "the video reaches the page's track")
            // The browser's reports of the packets lost raise the playout delay its frames are held for.
            waitUntil("viewer \(index) asks its browser to hold frames for the retransmissions", timeout: 10) {
                viewer.playoutDelayAsked == ViewerPlayoutDelay.lossy
            }
        }
    }

    /// The payload types of `sdp`'s RTX whose apt is `videoType`.
    static func retransmissionTypes(_ sdp: String, for videoType: Int) -> [Int] {
        let lines = sdp.split(whereSeparator: \.isNewline).map(String.init)
        return lines.compactMap { line -> Int? in
            guard line.hasPrefix("a=rtpmap:"), line.hasSuffix(" rtx/90000"),
                  let type = Int(line.dropFirst("a=rtpmap:".count).prefix { $0.isNumber }),
                  lines.contains("a=fmtp:\(type) apt=\(videoType)") else { return nil }
            return type
        }
    }
}
