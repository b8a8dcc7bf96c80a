import C1nkGLib
import CGStreamer

/// The ringing pulse of seed §9.8, animated natively: GStreamer controllers
/// (linear interpolation control sources) drive the size, position and
/// opacity of two `gdkpixbufoverlay` elements, which sample them once per
/// frame. Swift lays the curves out once per ring, for the next
/// `span` seconds; no Swift runs per frame.
///
/// Each circle grows from `fromDiameter` to `toDiameter` while its opacity
/// falls from 0.8 to 0, every 2 s; the second runs 1 s behind the first.
final class PulseAnimation {
    static let period = 2.0
    static let startOpacity = 0.8
    /// How long the curves run; a ring ends long before (the door gives up).
    static let span = 600.0

    private var bindings: [(UnsafeMutablePointer<GstObject>, UnsafeMutablePointer<GstControlBinding>)] = []

    /// `now`: the compositor's current stream time in seconds, where the
    /// first circle starts at its smallest.
    init(elements: [UnsafeMutablePointer<GstElement>], spec: ScreenLayout.Pulse, now: Double) {
        let from = spec.fromDiameter, to = spec.toDiameter
        for (index, element) in elements.enumerated() {
            let shift = Self.period / Double(elements.count) * Double(index)
            let object = UnsafeMutableRawPointer(element).assumingMemoryBound(to: GstObject.self)
            // A negative offset would count from the other edge: stay at 0 or more.
            let curves: [(String, Double, Double)] = [
                ("overlay-width", from, to), ("overlay-height", from, to),
                ("offset-x", max(0, spec.centerX - from / 2), max(0, spec.centerX - to / 2)),
                ("offset-y", max(0, spec.centerY - from / 2), max(0, spec.centerY - to / 2)),
                ("alpha", Self.startOpacity, 0),
            ]
            for (property, start, end) in curves {
                let source = Self.sawtooth(from: start, to: end, beginning: now - shift)
                let binding = gst_direct_control_binding_new_absolute(object, property, source)!
                gst_object_unref(UnsafeMutableRawPointer(source))
                gst_object_ref(UnsafeMutableRawPointer(binding))
                gst_object_add_control_binding(object, binding)
                bindings.append((object, binding))
            }
        }
    }

    deinit {
        for (object, binding) in bindings {
            gst_object_remove_control_binding(object, binding)
            gst_object_unref(UnsafeMutableRawPointer(binding))
        }
    }

    /// Goes linearly from `start` to `end` in each period after `beginning`
    /// (seconds of stream time), for `span` seconds.
    static func sawtooth(from start: Double, to end: Double, beginning: Double) -> UnsafeMutablePointer<GstControlSource> {
        let source = gst_interpolation_control_source_new()!
        ObjectProperty.set(UnsafeMutableRawPointer(source), "mode", "linear")
        let timed = UnsafeMutableRawPointer(source).assumingMemoryBound(to: GstTimedValueControlSource.self)
        let nanoseconds = { (seconds: Double) in GstClockTime(max(0, seconds) * 1_000_000_000) }
        var cycle = beginning
        while cycle < beginning + span + period {
            if cycle + period > 0 {
                // A cycle that began before time 0 starts part way through.
                let phase = cycle < 0 ? -cycle / period : 0
                gst_timed_value_control_source_set(timed, nanoseconds(cycle), start + (end - start) * phase)
                gst_timed_value_control_source_set(timed, nanoseconds(cycle + period) - 1, end)
            }
            cycle += period
        }
        return source
    }

    static func value(_ source: UnsafeMutablePointer<GstControlSource>, at seconds: Double) -> Double {
        var value = 0.0
        _ = gst_control_source_get_value(source, GstClockTime(seconds * 1_000_000_000), &value)
        return value
    }
}
