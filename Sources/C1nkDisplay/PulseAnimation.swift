import C1nkGLib
import CGStreamer

/// The ringing pulse around the bell, animated natively: GStreamer controllers
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

    /// Released with the animation: each unbinds its property.
    private let bindings: [ControlBinding]

    /// `now`: the compositor's current stream time in seconds, where the
    /// first circle starts at its smallest.
    init(elements: [Element], spec: ScreenLayout.Pulse, now: Double) {
        var bindings: [ControlBinding] = []
        for (index, element) in elements.enumerated() {
            let shift = Self.period / Double(elements.count) * Double(index)
            for curve in Self.curves(spec) {
                let source = Self.sawtooth(from: curve.start, to: curve.end, beginning: now - shift)
                bindings.append(ControlBinding(element, property: curve.property, source: source))
            }
        }
        self.bindings = bindings
    }

    /// The properties that move, each from its value at the smallest circle
    /// to its value at the largest. A negative offset would count from the
    /// other edge: the offsets stay at 0 or more.
    static func curves(_ spec: ScreenLayout.Pulse) -> [(property: String, start: Double, end: Double)] {
        let from = spec.fromDiameter, to = spec.toDiameter
        return [
            ("overlay-width", from, to), ("overlay-height", from, to),
            ("offset-x", max(0, spec.centerX - from / 2), max(0, spec.centerX - to / 2)),
            ("offset-y", max(0, spec.centerY - from / 2), max(0, spec.centerY - to / 2)),
            ("alpha", startOpacity, 0),
        ]
    }

    /// Goes linearly from `start` to `end` in each period after `beginning`
    /// (seconds of stream time), for `span` seconds.
    static func sawtooth(from start: Double, to end: Double, beginning: Double) -> InterpolationControlSource {
        let source = InterpolationControlSource()
        for point in sawtoothPoints(from: start, to: end, beginning: beginning) { source.set(point.value, at: point.time) }
        return source
    }

    /// The points of `sawtooth`: each period starts at `start` and reaches
    /// `end` a nanosecond before the next one starts. A cycle that began
    /// before time 0 starts part way through.
    static func sawtoothPoints(from start: Double, to end: Double, beginning: Double) -> [(time: GstClockTime, value: Double)] {
        let nanoseconds = { (seconds: Double) in GstClockTime(max(0, seconds) * 1_000_000_000) }
        var points: [(time: GstClockTime, value: Double)] = []
        var cycle = beginning
        while cycle < beginning + span + period {
            if cycle + period > 0 {
                let phase = cycle < 0 ? -cycle / period : 0
                points.append((nanoseconds(cycle), start + (end - start) * phase))
                points.append((nanoseconds(cycle + period) - 1, end))
            }
            cycle += period
        }
        return points
    }
}
