import CGStreamer
import Foundation
import XCTest
@testable import C1nkGLib
@testable import C1nkDisplay

/// Renders every screen through the real display pipeline (compositor,
/// imagefreeze, the call's input) into the sink, reads the sink's last frame
/// back as PNG and RGB, and checks pixel facts. The PNGs are docs/screens/.
final class DisplayScreenshotTests: XCTestCase {
    /// Where the PNGs go: docs/screens/ when `C1NK_UPDATE_SCREENS=1` (to
    /// refresh the pictures in the README), a temporary folder otherwise, so
    /// a test run leaves the checkout as it was.
    static let screensDirectory: URL = {
        if ProcessInfo.processInfo.environment["C1NK_UPDATE_SCREENS"] == "1" {
            return URL(fileURLWithPath: #filePath).deletingLastPathComponent()
                .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("docs/screens")
        }
        return URL(fileURLWithPath: temporaryDirectory())
    }()

    /// A fixed moment for the clock and history: Tuesday 1 December 2026, 14:32 local.
    static let moment: Date = {
        var parts = tm()
        parts.tm_year = 126; parts.tm_mon = 11; parts.tm_mday = 1; parts.tm_hour = 14; parts.tm_min = 32
        parts.tm_isdst = -1
        return Date(timeIntervalSince1970: Double(mktime(&parts)))
    }()

    /// Four rings, as they happened (oldest first, as the history file keeps them).
    static let rings: [RingHistory.Entry] = {
        let t = Int64(moment.timeIntervalSince1970 * 1000)
        return [
            .init(t: t - 3 * 86_400_000, door: "Garáž", outcome: .answeredElsewhere),
            .init(t: t - 86_400_000 - 8 * 3_600_000, door: "Dvor", outcome: .rejected),
            .init(t: t - 86_400_000 - 5 * 3_600_000, door: "Hlavný vchod", outcome: .missed),
            .init(t: t - 60_000, door: "Hlavný vchod", outcome: .answered),
        ]
    }()

    /// A ring history holding `rings`, in a file of its own.
    func makeHistory() -> RingHistory {
        let history = RingHistory(path: temporaryDirectory() + "/c1nk/history.jsonl")
        for ring in Self.rings { history.append(ring) }
        return history
    }

    /// The display's timers run on it: a still screen pauses when the test says.
    let clock = ManualClock()

    /// A display at `width`×`height` on a fakesink that keeps its last frame.
    func makeDisplay(_ width: Int, _ height: Int, reduceMotion: Bool = false, sink: String = "fakesink enable-last-sample=true") throws -> WallDisplay {
        Log.echoToStandardError = false
        var options = WallDisplay.Options()
        options.width = width
        options.height = height
        options.building = "Bytový dom · Hlavná 25"
        options.reduceMotion = reduceMotion
        let display = try WallDisplay(sink: sink, options: options, history: makeHistory(), clock: clock, date: { Self.moment })
        display.handle(.connection(true))
        return display
    }

    /// The door: a moving test picture sent into the display's call input,
    /// as a call's pipeline does.
    func makeDoorVideo(_ display: WallDisplay) throws -> UnsafeMutablePointer<GstElement> {
        var error: UnsafeMutablePointer<GError>?
        let pipeline = gst_parse_launch("videotestsrc is-live=true pattern=smpte ! video/x-raw,format=I420,width=640,height=360,framerate=30/1 ! \(display.pipeline.callSink) sync=false", &error)!
        XCTAssertNil(error)
        gst_element_set_state(pipeline, GST_STATE_PLAYING)
        return pipeline
    }

    /// Waits for frames showing the current scene (ten frames through the
    /// sink: the new picture is composed within two), lets a still screen
    /// pause as it does after `stillAfter`, and reads the last frame back.
    func capture(_ display: WallDisplay, _ name: String) throws -> RGBImage {
        let sinkInput = try XCTUnwrap(display.pipeline.sinkElement?.staticPad("sink"))
        let frames = BufferCount(sinkInput)
        waitUntil("frames of the new screen at the sink") { frames.value >= 10 }
        clock.advance(by: DisplayPipeline.stillAfter)
        let png = try XCTUnwrap(display.pipeline.lastFrame(as: "image/png"), "no frame reached the sink")
        try png.write(to: Self.screensDirectory.appendingPathComponent("\(name)-\(display.pipeline.width)x\(display.pipeline.height).png"))
        return try XCTUnwrap(RGBImage(display))
    }

    func testTheDisplaySinkRendersAtOnceUnlessTheDescriptionSetsSync() throws {
        for (description, sync) in [("appsink", false), ("appsink sync=true", true)] {
            let display = try DisplayPipeline(sink: description, width: 64, height: 64)
            defer { display.stop() }
            let sink = try XCTUnwrap(display.sinkElement)
            XCTAssertEqual(sink[bool: "sync"], sync, description)
        }
    }

    /// The first frame the sink gets is home, the panel with its text: the
    /// picture is handed over before the pipeline runs, so no frame of the
    /// compositor's black background comes first.
    func testTheFirstFrameIsTheIdlePanel() throws {
        let display = try makeDisplay(1280, 800, sink: "fakesink enable-last-sample=true num-buffers=1")
        defer { display.stop() }
        waitUntil("the first frame at the sink") { display.pipeline.lastFrame(as: "video/x-raw,format=RGB") != nil }
        let first = try XCTUnwrap(RGBImage(display))
        XCTAssertLessThan(first.fraction(of: .black), 0.01, "the first frame is not black")
        XCTAssertGreaterThan(first.fraction(of: .panel), 0.8, "the panel colour fills most of the first frame")
        let clockText = try XCTUnwrap(display.layout.items.lazy.compactMap { item -> ScreenLayout.Rect? in
            if case let .text(text, rect, _, _, _) = item, text == "14:32" { return rect } else { return nil }
        }.first)
        XCTAssertLessThan(first.fraction(of: .panel, in: clockText), 0.97, "the clock is drawn on the first frame")
    }

    /// A still screen runs for `stillAfter` (its new picture on its way to
    /// the sink), then pauses; a change runs it again.
    func testAStillScreenPausesAfterItsPictureIsOnItsWay() throws {
        let display = try makeDisplay(320, 240)
        defer { display.stop() }
        clock.advance(by: DisplayPipeline.stillAfter - 0.01)
        XCTAssertFalse(display.pipeline.isPaused, "home keeps running until its picture is on its way")
        clock.advance(by: 0.01)
        XCTAssertTrue(display.pipeline.isPaused, "home is still")
        display.handle(.ringing(door: "Hlavný vchod"))
        XCTAssertFalse(display.pipeline.isPaused, "a ring runs the pipeline again")
        clock.advance(by: 60)
        XCTAssertFalse(display.pipeline.isPaused, "the pulse moves: ringing never pauses")
    }

    /// A still screen composes nothing until the next change: the
    /// compositor's thread is held in its push (a live compositor in PAUSED
    /// went on composing 30 frames a second), and a change runs it again.
    func testAStillScreenComposesNoFrames() throws {
        let display = try makeDisplay(320, 240)
        defer { display.stop() }
        let output = try XCTUnwrap(display.pipeline.mixerOutput)
        clock.advance(by: DisplayPipeline.stillAfter)
        XCTAssertTrue(display.pipeline.isPaused, "the home screen is still")
        waitUntil("the compositor held at its output") { gst_pad_is_blocking(output.pointer) != 0 }
        let still = BufferCount(output)
        MainContext.spin(0.2)
        XCTAssertLessThanOrEqual(still.value, 1, "frames composed on a still screen")
        display.handle(.ringing(door: "Hlavný vchod")) // the pulse moves: frames again
        let ringing = BufferCount(output)
        let start = MainContext.monotonicSeconds()
        waitUntil("frames of the ringing screen") { ringing.value > 10 }
        XCTAssertLessThan(MainContext.monotonicSeconds() - start, 1, "more than 10 frames in a second of ringing")
    }

    /// Home lists the rings newest first, as a history does.
    func testHomeListsTheLatestRingFirst() throws {
        let display = try makeDisplay(800, 480)
        defer { display.stop() }
        XCTAssertEqual(display.scene.history.map(\.subtitle),
                       ["Hlavný vchod · prijaté", "Hlavný vchod · zmeškané", "Dvor · odmietnuté", "Garáž · prijaté inde"])
        XCTAssertEqual(display.scene.history.first?.title, "Dnes 14:31")
        let rows = display.layout.items.compactMap { item -> (String, Double)? in
            if case let .text(text, rect, _, _, _) = item, text.hasPrefix("Dnes") || text.hasPrefix("Včera") || text.hasPrefix("28.") {
                return (text, rect.y)
            } else { return nil }
        }
        XCTAssertEqual(rows.sorted { $0.1 < $1.1 }.map(\.0), ["Dnes 14:31", "Včera 09:32", "Včera 06:32", "28. 11. 14:32"], "top to bottom")
    }

    func testScreensAt1280x800() throws { try renderAllScreens(1280, 800) }
    func testScreensAt800x480() throws { try renderAllScreens(800, 480) }

    func renderAllScreens(_ width: Int, _ height: Int) throws {
        let display = try makeDisplay(width, height)
        defer { display.stop() }
        let idle = try capture(display, "idle")
        XCTAssertGreaterThan(idle.fraction(of: .panel), 0.8, "the panel colour fills most of the idle screen")
        XCTAssertTrue(display.pipeline.isPaused, "a still screen stops producing frames")
        let header = ScreenLayout(scene: display.scene, width: width, height: height).items.compactMap { item -> ScreenLayout.Rect? in
            if case let .text(text, rect, _, _, _) = item, !text.isEmpty { return rect } else { return nil }
        }
        for rect in header { XCTAssertLessThan(idle.fraction(of: .panel, in: rect), 0.97, "text is drawn in \(rect)") }

        display.handle(.ringing(door: "Hlavný vchod"))
        let ringing = try capture(display, "ringing")
        XCTAssertFalse(display.pipeline.isPaused, "the pulse moves")
        let accept = try XCTUnwrap(display.layout.frame(of: .accept))
        XCTAssertGreaterThan(ringing.fraction(of: .green, in: accept), 0.5)

        let door = try makeDoorVideo(display)
        defer { gst_element_set_state(door, GST_STATE_NULL); gst_object_unref(UnsafeMutableRawPointer(door)) }
        display.handle(.mediaConnected)
        display.handle(.firstFrame)
        _ = try capture(display, "ringing-preview")

        display.handle(.accepted)
        let call = try capture(display, "in-call")
        let open = try XCTUnwrap(display.layout.frame(of: .open))
        XCTAssertGreaterThan(call.fraction(of: .green, in: open), 0.5)

        display.handle(.doorOpened)
        _ = try capture(display, "odomknute")

        display.handle(.ended(reason: .hangup))
        _ = try capture(display, "ended")

        display.handle(.ringing(door: "Hlavný vchod"))
        display.handle(.accepted)
        display.handle(.timeout(.noPicture))
        _ = try capture(display, "bez-obrazu")

        display.handle(.ended(reason: .noConnection))
        _ = try capture(display, "bez-pripojenia")
    }
}
