import CGStreamer
import XCTest
@testable import C1nkDoor
@testable import C1nkGLib
@testable import C1nkMedia
@testable import C1nkProbes
@testable import C1nkViewers

/// A call in this process (`AudioLoopback`: the simulated door and the
/// answering session), watched by `TestBrowser`s, each through a
/// `BrowserViewer` of its own; what the call shows, what each browser gets
/// and the keyframes asked of the door are counted.
final class WatchedCall {
    let call: AudioLoopback
    let session: AnswerSession
    let tap: CallTap
    private(set) var browsers: [TestBrowser] = []
    private(set) var viewers: [BrowserViewer] = []
    /// Each viewer's answer, as its browser got it.
    private(set) var answers: [String] = []
    /// Keyframe requests that reached the door's encoder (force-key-unit events).
    let doorKeyframeRequests = FrameCounter()

    /// `prepare` runs on each viewer before it starts.
    init(viewers count: Int, retransmissions: Bool = false, prepare: (BrowserViewer) -> Void = { _ in }) throws {
        call = try AudioLoopback()
        call.waitForVideo()
        session = try XCTUnwrap(call.session)
        tap = CallTap(session: session)
        waitUntil("the door's media flow to the tap") { tap.caps(for: "video") != nil && tap.caps(for: "audio") != nil }
        let requests = doorKeyframeRequests
        call.door.pipeline.pipeline.element(named: "door-camera")?.staticPad("src")?.addProbe(GST_PAD_PROBE_TYPE_EVENT_UPSTREAM) { info in
            if let event = info.pointee.data?.assumingMemoryBound(to: GstEvent.self), gst_video_event_is_force_key_unit(event) != 0 {
                requests.value.add(1, ordering: .relaxed)
            }
            return GST_PAD_PROBE_OK
        }
        answers = Array(repeating: "", count: count)
        for index in 0..<count {
            let browser = try TestBrowser(retransmissions: retransmissions)
            browsers.append(browser)
            waitUntil("the browser's offer with its candidates") { browser.offer != nil }
            let viewer = try BrowserViewer(id: "v\(index)", offer: try XCTUnwrap(browser.offer), tap: tap, ice: .loopback)
            prepare(viewer)
            viewer.start { [weak self] result in
                guard case .success(let answer) = result else { return XCTFail("viewer \(index): \(result)") }
                self?.answers[index] = answer
                browser.apply(answer)
            }
            viewers.append(viewer)
        }
        waitUntil("the viewers connected", timeout: 30) { self.viewers.allSatisfy(\.isConnected) }
        waitUntil("each browser receives the door's media", timeout: 15) {
            self.browsers.allSatisfy { $0.buffers.value.load(ordering: .relaxed) > 30 }
        }
    }

    func stop() {
        for viewer in viewers { viewer.close("the test ended") }
        for browser in browsers { browser.stop() }
        tap.stop()
        call.stop()
    }

    /// What happened over some seconds of the main loop.
    struct Pace {
        var seconds: Double
        /// Frames the call showed per second.
        var callFrames: Double
        /// Packets each browser received per second.
        var browserPackets: [Double]
        /// How late a 10 ms timer on the main context ran at worst, and how often it ran.
        var worstLateness: Double
        var ticks: Int
    }

    /// Runs the main loop for `seconds`, measuring.
    func pace(over seconds: Double) -> Pace {
        let frames = session.framesRendered
        let packets = browsers.map { $0.buffers.value.load(ordering: .relaxed) }
        var worst = 0.0, ticks = 0
        var last = MainContext.monotonicSeconds()
        let timer = GLibTimer(after: 0.01, repeats: true) {
            let now = MainContext.monotonicSeconds()
            worst = max(worst, now - last - 0.01)
            ticks += 1
            last = now
        }
        let start = MainContext.monotonicSeconds()
        MainContext.run(timeout: seconds) { false }
        timer.cancel()
        let elapsed = MainContext.monotonicSeconds() - start
        return Pace(seconds: elapsed, callFrames: Double(session.framesRendered - frames) / elapsed,
                    browserPackets: zip(browsers, packets).map { Double($0.buffers.value.load(ordering: .relaxed) - $1) / elapsed },
                    worstLateness: worst, ticks: ticks)
    }

    /// Where the browser's RTCP enters viewer `index`'s RTP session (after
    /// SRTP): what a browser, which holds the keys, can send, arrives here.
    func rtcpEntry(ofViewer index: Int) throws -> Pad {
        let rtpbin = try XCTUnwrap(viewers[index].webrtcElement.elements.first { $0.factoryName == "rtpbin" })
        return try XCTUnwrap(rtpbin.staticPad("recv_rtcp_sink_0"))
    }

    /// The SSRC viewer `index` sends the door's video with, from its answer.
    func videoSSRC(ofViewer index: Int) throws -> UInt32 {
        let lines = answers[index].split(whereSeparator: \.isNewline)
        let video = try XCTUnwrap(lines.drop { !$0.hasPrefix("m=video") }.first { $0.hasPrefix("a=ssrc:") })
        return try XCTUnwrap(UInt32(video.dropFirst("a=ssrc:".count).prefix { $0.isNumber }))
    }

    /// Viewer `index`'s video payloader (the element feeding webrtcbin's first m-line).
    func videoPayloader(ofViewer index: Int) throws -> Element {
        try XCTUnwrap(viewers[index].webrtcElement.staticPad("sink_0")?.peer?.parent)
    }
}
