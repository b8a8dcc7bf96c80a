import CGStreamer
import XCTest
@testable import C1nkGLib
@testable import C1nkMedia
@testable import C1nkViewers
@testable import C1nkProbes

/// A browser's side of one viewer, in this process: webrtcbin receiving
/// video and audio, its offer carrying its candidates (no trickle, as the
/// page sends it), the viewer's answer applied; what it receives is counted.
/// It reports (RTCP) every second or so, as a browser does (webrtcbin's own
/// pace is RFC 3550's, every 5 s and randomised up to 9).
final class TestBrowser {
    let pipeline = Pipeline(pipelineNamed: "test-browser")
    let webrtc: WebRTCBin
    let buffers = FrameCounter()
    private(set) var offer: String?
    private var sdp: String?
    private var candidates: [(line: Int, candidate: String)] = []
    private var reportPace: SignalConnection?

    /// `retransmissions`: the offer asks for NACK and RTX on the video, as a browser's does.
    init(retransmissions: Bool = false) throws {
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
        reportPace = webrtc.webrtcbin.connect("deep-element-added") { (_: gpointer?, added: gpointer?) in
            guard let element = Element.fromSignalArgument(added), element.factoryName == "rtpsession" else { return }
            element.set("rtcp-min-interval", fromString: "1000000000")
        }
        _ = pipeline.add(webrtc.webrtcbin)
        for caps in ["application/x-rtp,media=video,encoding-name=VP8,payload=96,clock-rate=90000",
                     "application/x-rtp,media=audio,encoding-name=OPUS,payload=111,clock-rate=48000,encoding-params=(string)2"] {
            let preferences = try XCTUnwrap(Caps(caps))
            if let made = c1nk_emit_add_transceiver(webrtc.webrtcbin.object, GST_WEBRTC_RTP_TRANSCEIVER_DIRECTION_RECVONLY, preferences.pointer) {
                let transceiver = GObjectReference(adopting: made)
                if retransmissions && caps.contains("media=video") { transceiver.set("do-nack", fromString: "true") }
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

    /// From now on everything that arrives is thrown away unread, as by a page
    /// that stopped playing; the browser's network side still answers and reports.
    func stopReading() {
        for source in webrtc.webrtcbin.elements where source.factoryName == "nicesrc" {
            source.staticPad("src")?.addProbe(GST_PAD_PROBE_TYPE_BUFFER) { _ in GST_PAD_PROBE_DROP }
        }
    }

    func stop() {
        reportPace?.disconnect()
        webrtc.disconnect()
        _ = pipeline.setState(GST_STATE_NULL)
    }
}
