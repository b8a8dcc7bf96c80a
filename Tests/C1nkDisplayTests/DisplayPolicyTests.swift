import CGStreamer
import XCTest
@testable import C1nkDisplay

/// The display pipeline's decisions, apart from the pipeline.
final class DisplayPolicyTests: XCTestCase {
    func testTheSizeIsEvenAndAtLeastSixteen() {
        let odd = DisplayPipelineDescription(sink: "fakesink", width: 801, height: 7, framesPerSecond: 0)
        XCTAssertEqual([odd.width, odd.height, odd.framesPerSecond], [800, 16, 1])
        let usual = DisplayPipelineDescription(sink: "kmssink", width: 1280, height: 800, framesPerSecond: 30)
        XCTAssertEqual(usual.frameDuration, 33_333_333)
        XCTAssertTrue(usual.text.contains("compositor name=display-mix background=black latency=33333333 ! video/x-raw,format=I420,colorimetry=bt709,width=1280,height=800,framerate=30/1"))
        XCTAssertTrue(usual.text.contains("! gdkpixbufoverlay name=display-pulse-a ! gdkpixbufoverlay name=display-pulse-b ! queue name=display-queue"))
        XCTAssertTrue(usual.text.contains("videoconvert ! kmssink\n"))
    }

    func testSyncIsTurnedOffUnlessTheSinkSetsIt() {
        let plain = DisplayPipelineDescription(sink: "autovideosink", width: 64, height: 64, framesPerSecond: 30)
        XCTAssertTrue(plain.syncOff(renderImmediately: true))
        XCTAssertFalse(plain.syncOff(renderImmediately: false))
        let own = DisplayPipelineDescription(sink: "xvimagesink sync=true", width: 64, height: 64, framesPerSecond: 30)
        XCTAssertFalse(own.syncOff(renderImmediately: true))
    }

    func testLayersShowByBackground() {
        XCTAssertTrue(DisplayComposition.alphas(.panel) == (0, 1))
        XCTAssertTrue(DisplayComposition.alphas(.video(veil: 0.55)) == (1, 0.55))
        XCTAssertTrue(DisplayComposition.alphas(.video(veil: 0)) == (1, 0))
    }

    func testOnlyScreensWithoutVideoOrMotionAreStill() {
        func layout(_ screen: DisplayMachine.Screen, reduceMotion: Bool = false) -> ScreenLayout {
            var scene = DisplayScene()
            scene.screen = screen
            scene.reduceMotion = reduceMotion
            return ScreenLayout(scene: scene, width: 800, height: 480)
        }
        XCTAssertTrue(DisplayComposition.isStill(layout(.idle)))
        XCTAssertTrue(DisplayComposition.isStill(layout(.ended(door: "D", reason: .hangup))))
        XCTAssertTrue(DisplayComposition.isStill(layout(.inCall(.init(door: "D", picture: .none)))))
        XCTAssertFalse(DisplayComposition.isStill(layout(.ringing(door: "D", preview: false))), "the pulse moves")
        XCTAssertTrue(DisplayComposition.isStill(layout(.ringing(door: "D", preview: false), reduceMotion: true)))
        XCTAssertFalse(DisplayComposition.isStill(layout(.ringing(door: "D", preview: true), reduceMotion: true)), "the video moves")
        XCTAssertFalse(DisplayComposition.isStill(layout(.inCall(.init(door: "D", picture: .showing)))))
    }

    func testReduceMotionShowsOneCircleBetweenTheSizes() {
        let spec = ScreenLayout.Pulse(centerX: 400, centerY: 192, fromDiameter: 110, toDiameter: 240, animated: false)
        XCTAssertEqual(DisplayComposition.StillCircle(spec), .init(spec))
        let circle = DisplayComposition.StillCircle(spec)
        XCTAssertEqual([circle.diameter, circle.offsetX, circle.offsetY], [175, 313, 105])
        XCTAssertEqual(circle.alpha, 0.5)
        let corner = DisplayComposition.StillCircle(.init(centerX: 10, centerY: 10, fromDiameter: 110, toDiameter: 240, animated: false))
        XCTAssertEqual([corner.offsetX, corner.offsetY], [0, 0], "never a negative offset")
    }

    /// Each period starts small and ends large a nanosecond before the next;
    /// one that began before time 0 starts part way.
    func testThePulseCurvesAreSawtooths() {
        let points = PulseAnimation.sawtoothPoints(from: 0, to: 1, beginning: -1)
        XCTAssertEqual(points[0].time, 0)
        XCTAssertEqual(points[0].value, 0.5, accuracy: 1e-9)
        XCTAssertEqual(points[1].time, 1_000_000_000 - 1)
        XCTAssertEqual(points[1].value, 1)
        XCTAssertEqual(points[2].time, 1_000_000_000)
        XCTAssertEqual(points[2].value, 0)
        XCTAssertGreaterThanOrEqual(Double(points.last!.time) / 1e9, PulseAnimation.span - 1)
        let source = PulseAnimation.sawtooth(from: 0, to: 1, beginning: 0)
        XCTAssertEqual(source.value(atSeconds: 0.5), 0.25, accuracy: 0.001)
        XCTAssertEqual(source.value(atSeconds: 3), 0.5, accuracy: 0.001)
        let spec = ScreenLayout.Pulse(centerX: 50, centerY: 300, fromDiameter: 110, toDiameter: 240, animated: true)
        let curves = PulseAnimation.curves(spec)
        XCTAssertEqual(curves.map(\.property), ["overlay-width", "overlay-height", "offset-x", "offset-y", "alpha"])
        XCTAssertEqual(curves[2].start, 0, "offsets stay at 0 or more")
        XCTAssertEqual(curves[3].end, 180)
        XCTAssertEqual(curves[4].start, 0.8)
    }

    func testKeysWithoutScreensAnswerToo() {
        XCTAssertEqual(["Return", "KP_Enter", "a", "Esc", "r", "o", "h", "m", "q"].map { KeyCommand.command(forKey: $0, muted: false) },
                       ["accept", "accept", "accept", "reject", "reject", "open", "hangup", "mute", nil])
        XCTAssertEqual(KeyCommand.command(forKey: "M", muted: true), "unmute")
    }
}
