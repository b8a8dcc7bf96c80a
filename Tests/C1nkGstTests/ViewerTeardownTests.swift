import CGStreamer
import XCTest
@testable import C1nkGLib
@testable import C1nkMedia
@testable import C1nkViewers
@testable import C1nkProbes

/// The web page's viewers ended at a hang-up: ten at once must not hold the
/// main context (a webrtcbin pipeline set to NULL waits for its threads).
final class ViewerTeardownTests: XCTestCase {
    override func setUp() { Log.echoToStandardError = false }
    override func tearDown() { Log.echoToStandardError = true }

    func testTenViewersEndWithoutHoldingTheMainContext() throws {
        let call = try AudioLoopback()
        defer { call.stop() }
        call.waitForVideo()
        let session = try XCTUnwrap(call.session)
        let tap = CallTap(session: session)
        defer { tap.stop() }
        waitUntil("the door's media flow to the tap") { tap.caps(for: "video") != nil && tap.caps(for: "audio") != nil }
        var viewers: [BrowserViewer] = []
        var browsers: [TestBrowser] = []
        defer { for browser in browsers { browser.stop() } }
        for index in 0..<10 {
            let browser = try TestBrowser()
            browsers.append(browser)
            waitUntil("the browser's offer with its candidates") { browser.offer != nil }
            let viewer = try BrowserViewer(id: "v\(index)", offer: try XCTUnwrap(browser.offer), tap: tap, ice: .loopback)
            viewer.start { result in if case .success(let answer) = result { browser.apply(answer) } }
            viewers.append(viewer)
        }
        waitUntil("ten viewers connected", timeout: 30) { viewers.allSatisfy(\.isConnected) }
        waitUntil("each browser receives the door's media", timeout: 15) { browsers.allSatisfy { $0.buffers.value.load(ordering: .relaxed) > 30 } }
        var closed = 0
        for viewer in viewers { viewer.onClosed = { _ in closed += 1 } }

        // A 10 ms timer's lateness, from a second before the hang-up to a second after.
        var lateness: [Double] = []
        var last = MainContext.monotonicSeconds()
        let timer = GLibTimer(after: 0.01, repeats: true) {
            let now = MainContext.monotonicSeconds()
            lateness.append(max(0, now - last - 0.01))
            last = now
        }
        defer { timer.cancel() }
        MainContext.run(timeout: 1) { false }
        let quiet = lateness.max() ?? 0
        lateness.removeAll()
        for viewer in viewers { viewer.close("the call ended") }
        viewers.removeAll()
        XCTAssertEqual(closed, 10, "each viewer says it ended at once")
        MainContext.run(timeout: 1) { false }
        let worst = (lateness.max() ?? 0) * 1000
        print("viewer teardown: the 10 ms timer at most \(String(format: "%.1f", worst)) ms late during the hang-up of 10 viewers "
              + "(\(String(format: "%.1f", quiet * 1000)) ms before it)")
        XCTAssertGreaterThan(lateness.count, 30, "the timer ran during the hang-up")
        XCTAssertLessThanOrEqual(worst, 50, "the main context was held \(worst) ms")
        waitUntil("the viewers' pipelines are released", timeout: 10) { BrowserViewer.teardownsInProgress == 0 }
    }
}

/// A browser's side of one viewer, in this process: webrtcbin receiving
/// video and audio, its offer carrying its candidates (no trickle, as the
/// page sends it), the viewer's answer applied; what it receives is counted.
final class TestBrowser {
    let pipeline = Pipeline(pipelineNamed: "test-browser")
    let webrtc: WebRTCBin
    let buffers = FrameCounter()
    private(set) var offer: String?
    private var sdp: String?
    private var candidates: [(line: Int, candidate: String)] = []

    init() throws {
        let pipeline = self.pipeline, buffers = self.buffers
        webrtc = try WebRTCBin(name: "browser", ice: .loopback, latencyMilliseconds: 50, onNewStream: nil, onReceivingPad: { pad in
            // Streaming thread: each received stream into a counting sink.
            guard let sink = Element.make("fakesink") else { return }
            sink.set("sync", fromString: "false")
            _ = pipeline.add(sink)
            _ = sink.syncStateWithParent()
            _ = pad.link(sink.staticPad("sink")!)
            sink.staticPad("sink")?.addProbe(GST_PAD_PROBE_TYPE_BUFFER) { _ in
                buffers.value.add(1, ordering: .relaxed)
                return GST_PAD_PROBE_OK
            }
        })
        _ = pipeline.add(webrtc.webrtcbin)
        for caps in ["application/x-rtp,media=video,encoding-name=VP8,payload=96,clock-rate=90000",
                     "application/x-rtp,media=audio,encoding-name=OPUS,payload=111,clock-rate=48000,encoding-params=(string)2"] {
            let preferences = try XCTUnwrap(Caps(caps))
            if let made = c1nk_emit_add_transceiver(webrtc.webrtcbin.object, GST_WEBRTC_RTP_TRANSCEIVER_DIRECTION_RECVONLY, preferences.pointer) {
                _ = GObjectReference(adopting: made)
            }
        }
        webrtc.onLocalCandidate = { [weak self] line, candidate in self?.candidates.append((Int(line), candidate)) }
        webrtc.onGatheringState = { [weak self] state in
            guard let self, state == GST_WEBRTC_ICE_GATHERING_STATE_COMPLETE, let sdp = self.sdp else { return }
            self.offer = WHEPOffer.answer(sdp, with: self.candidates)
        }
        XCTAssertTrue(pipeline.setState(GST_STATE_PLAYING))
        webrtc.createLocalDescription(GST_WEBRTC_SDP_TYPE_OFFER) { [weak self] result in
            if case .success(let sdp) = result { self?.sdp = sdp }
        }
    }

    /// The viewer's answer, its candidates with it.
    func apply(_ answer: String) {
        webrtc.setRemoteDescription(GST_WEBRTC_SDP_TYPE_ANSWER, sdp: answer) { error in
            if let error { XCTFail("the browser refused the viewer's answer: \(error)") }
        }
        for line in answer.split(whereSeparator: { $0 == "\r" || $0 == "\n" }) where line.hasPrefix("a=candidate:") {
            webrtc.addRemoteCandidate(mlineIndex: 0, candidate: String(line.dropFirst(2)))
        }
    }

    func stop() {
        webrtc.disconnect()
        _ = pipeline.setState(GST_STATE_NULL)
    }
}
