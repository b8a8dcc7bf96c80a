import CGStreamer
import Foundation
import XCTest
@testable import C1nkDisplay
@testable import C1nkGLib
@testable import C1nkMedia

/// Input to the display: navigation events sent into the sink's pad the way a
/// window sink sends them, and recorded Linux `input_event` records fed to
/// the evdev reader through a pipe and a file — over a real call.
final class DisplayInputTests: XCTestCase {
    /// One `input_event` record.
    static func record(_ type: Int32, _ code: Int32, _ value: Int32) -> [UInt8] {
        var event = input_event()
        event.type = UInt16(type)
        event.code = UInt16(code)
        event.value = value
        return withUnsafeBytes(of: &event) { Array($0) }
    }

    static func touch(x: Int32, y: Int32) -> [UInt8] {
        record(Int32(EV_ABS), Int32(ABS_X), x) + record(Int32(EV_ABS), Int32(ABS_Y), y)
            + record(Int32(EV_KEY), Int32(BTN_TOUCH), 1) + record(Int32(EV_SYN), 0, 0)
            + record(Int32(EV_KEY), Int32(BTN_TOUCH), 0) + record(Int32(EV_SYN), 0, 0)
    }

    static func key(_ code: Int32) -> [UInt8] {
        record(Int32(EV_KEY), code, 1) + record(Int32(EV_SYN), 0, 0) + record(Int32(EV_KEY), code, 0) + record(Int32(EV_SYN), 0, 0)
    }

    /// Sends a navigation event upstream from the display's sink, as
    /// waylandsink, glimagesink or xvimagesink do for a click or a key.
    static func navigate(_ display: WallDisplay, _ event: UnsafeMutablePointer<GstEvent>) {
        let pad = display.pipeline.sinkElement!.staticPad("sink")!
        // Nothing upstream handles it (the result is false): the display reads it on its way.
        _ = pad.pushEvent(event)
    }

    func testRecordedTouchAndKeysFromAFile() throws {
        let path = NSTemporaryDirectory() + "c1nk-input-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let bytes = Self.touch(x: 700, y: 420) + Self.key(Int32(KEY_ENTER)) + Self.key(Int32(KEY_ESC)) + Self.key(Int32(KEY_M))
            + Self.key(Int32(KEY_Q)) + Self.record(Int32(EV_KEY), Int32(KEY_O), 1).prefix(10)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let reader = try EvdevReader(path: path, displayWidth: 800, displayHeight: 480)
        var inputs: [NavigationInput] = []
        reader.onInput = { inputs.append($0) }
        waitUntil("the records to be read") { inputs.count == 4 }
        MainContext.spin(0.05)
        XCTAssertEqual(inputs, [.press(x: 700, y: 420), .key("Return"), .key("Escape"), .key("m")])
    }

    func testAnInputDeviceThatCannotOpenIsRefusedClearly() {
        XCTAssertThrowsError(try EvdevReader(path: "/dev/input/event-none", displayWidth: 800, displayHeight: 480)) { error in
            XCTAssertEqual("\(error)", "--input: cannot open /dev/input/event-none: No such file or directory. List the devices with: ls -l /dev/input/by-path/ (or use --input auto).")
        }
    }

    func testTouchAndKeysAnswerOpenAndHangUpARealCall() throws {
        Log.echoToStandardError = false
        var options = WallDisplay.Options()
        (options.width, options.height) = (640, 400)
        let display = try WallDisplay(sink: "fakesink enable-last-sample=true", options: options)
        defer { display.stop() }
        let harness = try CallHarness { $0.media.videoSink = display.pipeline.callSink }
        defer { harness.stop() }
        harness.events.onEvent = { event, _ in display.event(event) }
        harness.answerer.onAction = { if case .setMicrophoneMuted(let muted) = $0 { display.microphoneMuted(muted) } }
        var refusals: [String] = []
        display.onCommand = { command in
            if let problem = harness.answerer.command(command) { refusals.append(problem) }
        }

        harness.door.ring()
        waitUntil("the door's video as a preview", timeout: 15) {
            if case .ringing(_, true) = display.machine.screen { return true } else { return false }
        }
        // A click on the drawn accept button.
        let accept = try XCTUnwrap(display.layout.frame(of: .accept))
        Self.navigate(display, gst_navigation_event_new_mouse_button_press(1, accept.midX, accept.midY, GstNavigationModifierType(rawValue: 0)))
        waitUntil("the accept") { harness.count("accepted") == 1 }
        // The door's video shows through the in-call screen: its colour bars,
        // not the panel, in the middle of the display. The screen changes
        // before the call's video reaches it again (black meanwhile), so the
        // wait is for both.
        func colours(in image: RGBImage) -> Int {
            var colours = Set<Int>()
            for x in stride(from: 10, to: 630, by: 20) { let p = image.pixel(x, 120); colours.insert(p.0 / 32 * 64 + p.1 / 32 * 8 + p.2 / 32) }
            return colours.count
        }
        var seen = (panel: 1.0, colours: 0)
        waitUntil("the in-call screen over the door's video", timeout: 15) {
            guard let frame = display.pipeline.lastFrame(as: "video/x-raw,format=RGB,pixel-aspect-ratio=1/1") else { return false }
            let image = RGBImage(width: 640, height: 400, bytes: [UInt8](frame))
            seen = (image.fraction(of: .panel, in: .init(x: 0, y: 80, width: 640, height: 120)), colours(in: image))
            return seen.panel < 0.05 && seen.colours > 4
        }
        XCTAssertLessThan(seen.panel, 0.05, "the panel over the door's video")
        XCTAssertGreaterThan(seen.colours, 4, "the door's test pattern")

        // The key `m` from a sink, then `o` and `h` from a recorded input stream through a pipe.
        Self.navigate(display, gst_navigation_event_new_key_press("m", GstNavigationModifierType(rawValue: 0)))
        waitUntil("the mute indicator") {
            if case .inCall(let call) = display.machine.screen { return call.muted } else { return false }
        }
        var fds: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&fds), 0)
        let reader = try EvdevReader(path: "/proc/self/fd/\(fds[0])", displayWidth: 640, displayHeight: 400)
        close(fds[0])
        reader.onInput = { display.receive($0) }
        let open = Self.key(Int32(KEY_O))
        XCTAssertEqual(open.withUnsafeBytes { write(fds[1], $0.baseAddress, $0.count) }, open.count)
        waitUntil("ODOMKNUTÉ", timeout: 10) {
            if case .inCall(let call) = display.machine.screen { return call.notice == .unlocked } else { return false }
        }
        XCTAssertTrue(harness.door.doorOpened)
        // Hang up with a touch on the drawn hang-up button.
        let hangup = try XCTUnwrap(display.layout.frame(of: .hangup))
        let touch = Self.touch(x: Int32(hangup.midX), y: Int32(hangup.midY))
        XCTAssertEqual(touch.withUnsafeBytes { write(fds[1], $0.baseAddress, $0.count) }, touch.count)
        close(fds[1])
        waitUntil("the hang-up") { harness.answerer.endedCalls == 1 }
        XCTAssertEqual(harness.lastEvent("ended")?["reason"] as? String, "hangup")
        XCTAssertEqual(display.machine.screen, .ended(door: "Hlavný vchod", reason: .hangup))
        XCTAssertEqual(refusals, [])
    }
}
