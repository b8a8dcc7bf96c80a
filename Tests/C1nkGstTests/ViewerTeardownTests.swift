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
