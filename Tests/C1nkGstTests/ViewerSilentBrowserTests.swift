import CGStreamer
import XCTest
@testable import C1nkGLib
@testable import C1nkViewers

/// A browser that stops: first its page stops reading what it is sent (the
/// viewer sends on, over UDP nothing waits for it), then nothing comes back
/// from it at all (a phone out of Wi-Fi, a peer that answered and went
/// quiet). Neither costs the call or the other viewer anything, and the
/// silent browser's viewer ends, its pipeline released.
final class ViewerSilentBrowserTests: XCTestCase {
    override func setUp() { Log.echoToStandardError = false }
    override func tearDown() { Log.echoToStandardError = true }

    /// The silence limit of this test's viewers: the product's is 15 s.
    static let silenceLimit = 3.0

    func testAViewerWhoseBrowserFallsSilentEndsWhileTheCallAndTheOtherViewerGoOn() throws {
        let watched = try WatchedCall(viewers: 2) { $0.silenceLimit = Self.silenceLimit }
        defer { watched.stop() }
        var ended: [Int: String] = [:]
        for (index, viewer) in watched.viewers.enumerated() { viewer.onClosed = { ended[index] = $0 } }
        let before = watched.pace(over: 2)

        // Longer than the silence limit: a browser that still reports is kept, read or not.
        watched.browsers[0].stopReading()
        let unread = watched.pace(over: Self.silenceLimit + 1.5)
        XCTAssertTrue(ended.isEmpty, "a browser that reports is kept: \(ended)")
        XCTAssertLessThan(unread.browserPackets[0], before.browserPackets[0] * 0.1, "browser 0 read nothing")

        watched.browsers[0].stop()
        let silentSince = MainContext.monotonicSeconds()
        waitUntil("the silent browser's viewer ends", timeout: Self.silenceLimit + 10) { ended[0] != nil }
        let endedAfter = MainContext.monotonicSeconds() - silentSince
        let after = watched.pace(over: 2)
        waitUntil("its pipeline is released", timeout: 10) { BrowserViewer.teardownsInProgress == 0 }

        let callFrames = Self.rates(before.callFrames, unread.callFrames, after.callFrames)
        let otherPackets = Self.rates(before.browserPackets[1], unread.browserPackets[1], after.browserPackets[1])
        let worst = Int(max(unread.worstLateness, after.worstLateness) * 1000)
        print("silent browser: ended after \(String(format: "%.1f", endedAfter)) s (limit \(Self.silenceLimit) s): \(ended[0] ?? "-"); "
              + "the call \(callFrames) frames/s, the other viewer \(otherPackets) packets/s; the main context at most \(worst) ms late")
        XCTAssertTrue(ended[0]?.contains("sent nothing") ?? false, "\(ended[0] ?? "not ended")")
        XCTAssertEqual(watched.viewers[0].webrtcElement.pointer.pointee.current_state, GST_STATE_NULL, "its webrtcbin is stopped")
        XCTAssertNil(ended[1], "the other viewer goes on")
        XCTAssertTrue(watched.viewers[1].isConnected)
        for pace in [unread, after] {
            XCTAssertGreaterThan(pace.callFrames, before.callFrames * 0.8, "the call shows the door's video at its pace")
            XCTAssertGreaterThan(pace.browserPackets[1], before.browserPackets[1] * 0.8, "the other browser gets the call at its pace")
            XCTAssertLessThan(pace.worstLateness, 0.2, "the main context stays free")
            XCTAssertGreaterThan(Double(pace.ticks), pace.seconds * 50, "the main context's 10 ms timer ran")
        }
    }

    static func rates(_ values: Double...) -> String { values.map { String(format: "%.0f", $0) }.joined(separator: " → ") }
}
