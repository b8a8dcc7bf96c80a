import C1nkGLib
import XCTest
@testable import C1nkMedia
@testable import C1nkViewers

/// A browser's keyframe requests on their way to the door: held frames until
/// the keyframe, and the call's pace whatever the viewers ask.
final class ViewerKeyframeTests: XCTestCase {
    func testAViewerGetsNoDeltaFrameUntilTheKeyframeAfterItsStartOrARequest() {
        let keyframes = ViewerKeyframes()
        let second = 1_000_000, start = 100 * second
        XCTAssertFalse(keyframes.pass(isKeyframe: false, now: start), "at the start the viewer waits for a keyframe")
        XCTAssertTrue(keyframes.pass(isKeyframe: true, now: start))
        XCTAssertTrue(keyframes.pass(isKeyframe: false, now: start + second / 30), "after the keyframe, the delta frames go")
        XCTAssertTrue(keyframes.asked(now: start + second), "the first request is posted")
        XCTAssertFalse(keyframes.asked(now: start + second), "a second one waits for the first, not beside it")
        XCTAssertFalse(keyframes.pass(isKeyframe: false, now: start + second), "after a request, delta frames are held")
        XCTAssertFalse(keyframes.pass(isKeyframe: false, now: start + second))
        XCTAssertTrue(keyframes.pass(isKeyframe: true, now: start + 2 * second))
        XCTAssertTrue(keyframes.pass(isKeyframe: false, now: start + 2 * second))
        XCTAssertEqual(keyframes.requests.value.load(ordering: .relaxed), 2)
        XCTAssertEqual(keyframes.held.value.load(ordering: .relaxed), 3)
    }

    /// A browser asks again every 200 ms while it waits for its first
    /// keyframe; the one it sent before that keyframe reached it, arriving
    /// just after, must not cost it the frames until the next.
    func testARequestJustAfterAKeyframeWentHoldsNothingBack() {
        let keyframes = ViewerKeyframes()
        let second = 1_000_000, start = 100 * second
        XCTAssertTrue(keyframes.pass(isKeyframe: true, now: start))
        XCTAssertTrue(keyframes.asked(now: start + second / 10), "sent on to the door")
        XCTAssertTrue(keyframes.pass(isKeyframe: false, now: start + second / 10), "but the delta frames go on")
        XCTAssertFalse(keyframes.asked(now: start + second), "a request a second later (the first not yet posted)")
        XCTAssertFalse(keyframes.pass(isKeyframe: false, now: start + second), "holds them")
        XCTAssertEqual(keyframes.held.value.load(ordering: .relaxed), 1)
    }

    func testAFloodOfRequestsReachesTheDoorAtTheCallsPaceAndNoneIsLost() {
        var clock = 100.0
        var sent = 0
        let pacer = KeyframePacer(interval: 0.2, now: { clock }) { sent += 1 }
        pacer.request()
        XCTAssertEqual(sent, 1, "the first request goes at once")
        // A hundred requests a second for one second, from ten viewers.
        let start = MainContext.monotonicSeconds()
        var asked = 0
        while MainContext.monotonicSeconds() - start < 1.0 {
            clock = 100.0 + (MainContext.monotonicSeconds() - start)
            for _ in 0..<10 { pacer.request(); asked += 1 }
            MainContext.spin(0.01)
        }
        clock = 102
        MainContext.spin(0.3)
        XCTAssertGreaterThan(asked, 200)
        XCTAssertLessThanOrEqual(sent, 1 + Int(1.0 / 0.2) + 2, "at most one request per interval reaches the door")
        XCTAssertGreaterThanOrEqual(sent, 3, "requests inside an interval are sent at its end, not dropped")
        pacer.cancel()
    }
}
