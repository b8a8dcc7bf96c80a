import C1nkGLib
import CGStreamer
import FoundationEssentials

/// A measurement probe for audio latency, the audio counterpart of the
/// video's `FrameStamp`: it finds where tone bursts begin in raw audio
/// (S16LE or F32LE, interleaved) passing a pad, and notes when each onset
/// happens on the system clock. Matching onsets at the mouth and at the ear
/// gives mouth-to-ear latency. Per buffer it reads samples and updates its
/// quiet run and onsets under a lock; nothing else.
public final class AudioOnsetProbe: @unchecked Sendable {
    public enum Timing: Sendable {
        /// When the sample was captured: element base time + the buffer's timestamp.
        case capture
        /// When a synchronised sink downstream plays it: as `capture`, plus
        /// the pipeline's latency — or when it arrives, if that is later (a
        /// sink cannot play a buffer before it has it).
        case playback
        /// When the buffer arrived at the pad (an unsynchronised sink plays it then).
        case arrival
    }

    private let lock = ThreadLock()
    private var times: [UInt64] = []
    private var quietSamples = Int.max
    private let threshold: Double
    private let quietNeeded: Double
    private let clock = SystemClock()

    /// Probes `pad` (of an element in a running or starting pipeline on the system clock).
    public convenience init(pad: Pad, timing: Timing, threshold: Double = 0.1, quietSeconds: Double = 0.1) {
        self.init(pad: pad.pointer, timing: timing, threshold: threshold, quietSeconds: quietSeconds)
    }

    /// The same on a pad held by pointer; prefer the `Pad` form.
    public init(pad: UnsafeMutablePointer<GstPad>, timing: Timing, threshold: Double = 0.1, quietSeconds: Double = 0.1) {
        self.threshold = threshold
        quietNeeded = quietSeconds
        // The probe reads this object on the pad's streaming thread; it gets
        // there through the pad's lock, a futex ThreadSanitizer cannot see.
        c1nk_tsan_release(Unmanaged.passUnretained(self).toOpaque())
        // The probe keeps the pad's pointer, not a reference: a probe that
        // held its own pad would keep it alive forever.
        PadProbe.add(pad, GST_PAD_PROBE_TYPE_BUFFER) { [weak self] info in
            guard let self, let buffer = info.pointee.data?.assumingMemoryBound(to: GstBuffer.self) else { return GST_PAD_PROBE_OK }
            c1nk_tsan_acquire(Unmanaged.passUnretained(self).toOpaque())
            self.inspect(buffer, pad: pad, timing: timing)
            return GST_PAD_PROBE_OK
        }
    }

    /// Onset times so far (system clock, nanoseconds).
    public var onsets: [UInt64] { lock.withLock { times } }

    /// Probes the src pad of the element `name` inside `bin`; nil if there is none.
    package static func attach(to name: String, in bin: Bin, pad padName: String = "src", timing: Timing) -> AudioOnsetProbe? {
        guard let pad = bin.element(named: name)?.staticPad(padName) else { return nil }
        return AudioOnsetProbe(pad: pad, timing: timing)
    }

    /// The same in a bin held by pointer; prefer the `Bin` form.
    package static func attach(to name: String, in bin: UnsafeMutablePointer<GstElement>, pad padName: String = "src",
                               timing: Timing) -> AudioOnsetProbe? {
        attach(to: name, in: Bin(sharing: bin), pad: padName, timing: timing)
    }

    /// A timestamp as running time, the time sinks synchronise to, by the
    /// pad's segment (a mixer's output segment need not start at zero).
    package static func runningTime(of pts: GstClockTime, on pad: UnsafeMutablePointer<GstPad>) -> UInt64 {
        guard let event = gst_pad_get_sticky_event(pad, GST_EVENT_SEGMENT, 0) else { return UInt64(pts) }
        defer { MiniObject.release(event) }
        var segment: UnsafePointer<GstSegment>?
        gst_event_parse_segment(event, &segment)
        guard let segment, segment.pointee.format == GST_FORMAT_TIME else { return UInt64(pts) }
        let running = gst_segment_to_running_time(segment, GST_FORMAT_TIME, pts)
        return running == GstClockTime.max ? UInt64(pts) : UInt64(running)
    }

    /// The minimum latency a pipeline reports (what its synchronised sinks wait), in nanoseconds.
    package static func latency(of pipeline: Element) -> UInt64? {
        guard let query = gst_query_new_latency() else { return nil }
        defer { MiniObject.release(query) }
        guard gst_element_query(pipeline.pointer, query) != 0 else { return nil }
        var live: gboolean = 0
        var minimum: GstClockTime = 0
        var maximum: GstClockTime = 0
        gst_query_parse_latency(query, &live, &minimum, &maximum)
        return minimum == GstClockTime.max ? nil : UInt64(minimum)
    }

    /// The same for a pipeline held by pointer; prefer the `Element` form.
    package static func latency(of pipeline: UnsafeMutablePointer<GstElement>) -> UInt64? {
        latency(of: Element(sharing: pipeline))
    }

    /// For each onset of `mouth`, the delay (ms) to the first onset of `ear`
    /// after it and within `window` seconds.
    public static func delays(mouth: [UInt64], ear: [UInt64], window: Double = 0.4) -> [Double] {
        mouth.compactMap { start in
            ear.first { $0 >= start && Double($0 - start) / 1e9 <= window }.map { Double($0 - start) / 1e6 }
        }
    }

    private func inspect(_ buffer: UnsafeMutablePointer<GstBuffer>, pad: UnsafeMutablePointer<GstPad>, timing: Timing) {
        guard let caps = gst_pad_get_current_caps(pad).map({ Caps(adopting: $0) }),
              let format = caps.string("format") else { return }
        let rate = caps.int("rate") ?? 0
        let channels = caps.int("channels") ?? 1
        let isFloat = format == "F32LE"
        guard rate > 0, isFloat || format == "S16LE" else { return }
        var map = GstMapInfo()
        guard gst_buffer_map(buffer, &map, GST_MAP_READ) != 0 else { return }
        defer { gst_buffer_unmap(buffer, &map) }
        let frames = Int(map.size) / ((isFloat ? 4 : 2) * channels)
        let raw = UnsafeRawPointer(map.data!)
        // The quiet run carries over from buffer to buffer, and a pad's
        // streaming thread may change (a restarted source): under the lock.
        let found: Int? = lock.withLock {
            var onsetFrame: Int?
            var quiet = quietSamples
            for frame in 0..<frames {
                let index = frame * channels
                let value = isFloat ? Double(raw.load(fromByteOffset: index * 4, as: Float.self))
                    : Double(raw.load(fromByteOffset: index * 2, as: Int16.self)) / 32768
                if abs(value) >= threshold {
                    if onsetFrame == nil, Double(quiet) / Double(rate) >= quietNeeded { onsetFrame = frame }
                    quiet = 0
                } else if quiet < Int.max {
                    quiet += 1
                }
            }
            quietSamples = quiet
            return onsetFrame
        }
        guard let onsetFrame = found else { return }
        let offset = UInt64(onsetFrame) * 1_000_000_000 / UInt64(rate)
        var time: UInt64
        switch timing {
        case .arrival:
            time = UInt64(clock.time) + offset
        case .capture, .playback:
            guard buffer.pointee.pts != GstClockTime.max, let element = gst_pad_get_parent_element(pad).map({ Element(adopting: $0) }) else { return }
            let base = gst_element_get_base_time(element.pointer)
            var latency: UInt64 = 0
            if case .playback = timing {
                var top = element
                while let parent = top.parent { top = parent }
                latency = Self.latency(of: top) ?? 0
            }
            time = UInt64(base) + Self.runningTime(of: buffer.pointee.pts, on: pad) + offset + latency
            if case .playback = timing { time = max(time, UInt64(clock.time) + offset) }
        }
        lock.withLock { times.append(time) }
    }
}
