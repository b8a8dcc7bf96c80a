import CGStreamer
import Foundation
import XCTest
@testable import C1nkGLib
@testable import C1nkMedia

/// Renders every screen through the real display pipeline (compositor,
/// imagefreeze, intervideo) into the sink, reads the sink's last frame back
/// as PNG and RGB, and checks pixel facts. The PNGs are docs/screens/.
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

    static let history: [RingHistory.Entry] = {
        let t = Int64(moment.timeIntervalSince1970 * 1000)
        return [
            .init(t: t - 60_000, door: "Hlavný vchod", outcome: .answered),
            .init(t: t - 86_400_000 - 5 * 3_600_000, door: "Hlavný vchod", outcome: .missed),
            .init(t: t - 86_400_000 - 8 * 3_600_000, door: "Dvor", outcome: .rejected),
            .init(t: t - 3 * 86_400_000, door: "Garáž", outcome: .answeredElsewhere),
        ]
    }()

    /// A display at `width`×`height` on a fakesink that keeps its last frame.
    func makeDisplay(_ width: Int, _ height: Int, reduceMotion: Bool = false) throws -> WallDisplay {
        Log.echoToStandardError = false
        var options = WallDisplay.Options()
        options.width = width
        options.height = height
        options.building = "Bytový dom · Hlavná 25"
        options.reduceMotion = reduceMotion
        let display = try WallDisplay(sink: "fakesink enable-last-sample=true", options: options)
        display.now = { Self.moment }
        display.history = { Self.history.reversed().map { $0 } }
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

    /// Waits for frames showing the current scene and reads the last one back.
    func capture(_ display: WallDisplay, _ name: String) throws -> RGBImage {
        MainContext.spin(DisplayPipeline.stillAfter + 0.3)
        let png = try XCTUnwrap(display.pipeline.lastFrame(as: "image/png"), "no frame reached the sink")
        try png.write(to: Self.screensDirectory.appendingPathComponent("\(name)-\(display.pipeline.width)x\(display.pipeline.height).png"))
        let raw = try XCTUnwrap(display.pipeline.lastFrame(as: "video/x-raw,format=RGB,pixel-aspect-ratio=1/1"))
        return RGBImage(width: display.pipeline.width, height: display.pipeline.height, bytes: [UInt8](raw))
    }

    func testTheDisplaySinkRendersAtOnceUnlessTheDescriptionSetsSync() throws {
        for (description, sync) in [("appsink", 0), ("appsink sync=true", 1)] {
            let display = try DisplayPipeline(sink: description, width: 64, height: 64)
            defer { display.stop() }
            let sink = try XCTUnwrap(display.sinkElement)
            XCTAssertEqual(c1nk_object_get_int(UnsafeMutableRawPointer(sink), "sync"), Int32(sync), description)
        }
    }

    /// A still screen composes nothing until the next change: counted at the
    /// compositor's output over a second (a live compositor in PAUSED went
    /// on composing 30 frames a second).
    func testAStillScreenComposesNoFrames() throws {
        let display = try makeDisplay(320, 240)
        defer { display.stop() }
        XCTAssertTrue(MainContext.run(timeout: 10, until: { display.pipeline.isPaused }), "the home screen is still")
        XCTAssertLessThanOrEqual(framesComposed(display, in: 1), 1, "frames composed in a second of a still screen")
        display.handle(.ringing(door: "Hlavný vchod")) // the pulse moves: frames again
        XCTAssertGreaterThan(framesComposed(display, in: 1), 10, "frames composed in a second of ringing")
    }

    /// Frames leaving the display's compositor in `seconds`.
    func framesComposed(_ display: WallDisplay, in seconds: Double) -> Int {
        let composed = Counter()
        let probe = PadProbe.add(display.pipeline.mixerOutput, GST_PAD_PROBE_TYPE_BUFFER) { _ in
            composed.increment()
            return GST_PAD_PROBE_OK
        }
        MainContext.spin(seconds)
        gst_pad_remove_probe(display.pipeline.mixerOutput, probe)
        return composed.value
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

        display.handle(.ended(reason: "hangup"))
        _ = try capture(display, "ended")

        display.handle(.ringing(door: "Hlavný vchod"))
        display.handle(.accepted)
        display.handle(.timeout(.noPicture))
        _ = try capture(display, "bez-obrazu")

        display.handle(.ended(reason: "no-connection"))
        _ = try capture(display, "bez-pripojenia")
    }
}

/// An RGB frame read back from the display, for pixel facts.
struct RGBImage {
    let width: Int
    let height: Int
    let bytes: [UInt8]

    func pixel(_ x: Int, _ y: Int) -> (Int, Int, Int) {
        let stride = (width * 3 + 3) & ~3
        let i = y * stride + x * 3
        return (Int(bytes[i]), Int(bytes[i + 1]), Int(bytes[i + 2]))
    }

    /// The share of pixels within ±6 per channel of `color` (in `rect`).
    func fraction(of color: DisplayColor, in rect: ScreenLayout.Rect? = nil) -> Double {
        let r = rect ?? .init(x: 0, y: 0, width: Double(width), height: Double(height))
        let (cr, cg, cb) = color.rgb
        var hits = 0, total = 0
        for y in stride(from: max(0, Int(r.y)), to: min(height, Int(r.maxY)), by: 2) {
            for x in stride(from: max(0, Int(r.x)), to: min(width, Int(r.maxX)), by: 2) {
                let p = pixel(x, y)
                total += 1
                if abs(p.0 - Int(cr)) <= 6 && abs(p.1 - Int(cg)) <= 6 && abs(p.2 - Int(cb)) <= 6 { hits += 1 }
            }
        }
        return total == 0 ? 0 : Double(hits) / Double(total)
    }
}

/// A count kept from a streaming thread, read on the test's.
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func increment() { lock.lock(); count += 1; lock.unlock() }
    var value: Int { lock.lock(); defer { lock.unlock() }; return count }
}
