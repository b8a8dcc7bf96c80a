import CGStreamer
import Foundation
import XCTest
@testable import C1nkDisplay
@testable import C1nkGLib
@testable import C1nkMedia
@testable import C1nkProbes

/// What the wall display adds to glass-to-glass: a stamped test picture sent
/// into the display's call input, its stamps read at the display's sink,
/// against the same picture rendered straight into a sink.
final class DisplayLatencyTests: XCTestCase {
    static let (width, height) = (320, 240)

    /// The display composes a call's frame as it arrives. Before, it sampled
    /// the latest one at its own 30 fps (intervideosrc) and its compositor
    /// waited a frame for its deadline: 50–60 ms more than a sink fed
    /// directly. Now the difference is a few ms; the bound, half a display
    /// frame, leaves room for a loaded machine.
    func testTheDisplayAddsLessThanHalfAFrame() throws {
        Log.echoToStandardError = false
        GStreamer.initialize()
        let direct = try medianAge(screen: nil)
        var options = WallDisplay.Options()
        options.width = Self.width
        options.height = Self.height
        let display = try WallDisplay(sink: "fakesink", options: options)
        defer { display.stop() }
        for event: DisplayMachine.Event in [.connection(true), .ringing(door: "Hlavný vchod"), .accepted, .mediaConnected, .firstFrame] {
            display.handle(event)
        }
        guard case .video(veil: 0) = display.layout.background else { return XCTFail("the call's screen shows the video: \(display.layout.background)") }
        // Nothing drawn over the video: its stamp, at the bottom, stays readable.
        display.pipeline.show(display.layout, layers: .init(base: ScreenPainter.paint(display.layout).base, overlay: nil))
        let shown = try medianAge(screen: display)
        XCTAssertLessThan(shown - direct, 1000.0 / 30 / 2,
                          "glass-to-glass through the display \(shown) ms, straight into a sink \(direct) ms")
    }

    /// The median age (ms) of the stamps read at the sink over 3 s, after
    /// 1 s to settle: the picture rendered into `display`, or into a sink of
    /// its own.
    func medianAge(screen display: WallDisplay?) throws -> Double {
        let sink = display.map { "\($0.pipeline.callSink) sync=false" } ?? "fakesink name=screen sync=false"
        var error: UnsafeMutablePointer<GError>?
        let pipeline = try XCTUnwrap(gst_parse_launch("""
            videotestsrc is-live=true pattern=black ! video/x-raw,format=I420,width=\(Self.width),height=\(Self.height),framerate=30/1
              ! identity name=door ! \(sink)
            """, &error))
        XCTAssertNil(error)
        defer {
            gst_element_set_state(pipeline, GST_STATE_NULL)
            gst_object_unref(UnsafeMutableRawPointer(pipeline))
        }
        let door = try XCTUnwrap(Gst.find("door", in: pipeline))
        let doorOutput = try XCTUnwrap(gst_element_get_static_pad(door, "src"))
        FrameStamp.stampFrames(on: doorOutput, width: Self.width, height: Self.height)
        gst_object_unref(UnsafeMutableRawPointer(doorOutput))
        gst_object_unref(UnsafeMutableRawPointer(door))
        let screen = try XCTUnwrap(display?.pipeline.sinkElement ?? Gst.find("screen", in: pipeline).map { Element(adopting: $0) })
        let screenInput = try XCTUnwrap(screen.staticPad("sink"))
        let ages = Ages()
        let probe = screenInput.addProbe(GST_PAD_PROBE_TYPE_BUFFER) { info in
            if let buffer = info.pointee.data?.assumingMemoryBound(to: GstBuffer.self),
               let stamp = FrameStamp.read(buffer, width: Self.width, height: Self.height),
               let age = FrameStamp.age(of: stamp) {
                ages.append(age)
            }
            return GST_PAD_PROBE_OK
        }
        defer { screenInput.removeProbe(probe) }
        gst_element_set_state(pipeline, GST_STATE_PLAYING)
        MainContext.spin(1)
        ages.clear()
        MainContext.spin(3)
        let values = ages.values.sorted()
        XCTAssertGreaterThan(values.count, 30, "stamps read at the sink in 3 s")
        return values.isEmpty ? .infinity : values[values.count / 2]
    }

    /// Ages read on a streaming thread, kept under a lock.
    final class Ages: @unchecked Sendable {
        private let lock = NSLock()
        private var stored: [Double] = []
        func append(_ age: Double) { lock.lock(); stored.append(age); lock.unlock() }
        func clear() { lock.lock(); stored.removeAll(); lock.unlock() }
        var values: [Double] { lock.lock(); defer { lock.unlock() }; return stored }
    }
}
