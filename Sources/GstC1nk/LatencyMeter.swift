import C1nkMedia
import C1nkProbes
import CGStreamer
import CGstC1nk

/// The state of one `c1nklatency` element: reads the `FrameStamp` of each
/// frame and posts `LatencyStats` as `c1nk-latency` element messages.
/// Touched by the element's streaming thread only.
final class LatencyMeter {
    private var interval: [Double] = []
    private var intervalUnreadable = 0
    private var intervalShown: [(Int, Int)] = []
    private var all: [Double] = []
    private var unreadable = 0
    private var shown: [(Int, Int)] = []
    private var lastReport = Int(g_get_monotonic_time())
    /// Samples kept for the end-of-stream figures (the latest ones).
    private static let memory = 100_000

    func frame(_ element: UnsafeMutableRawPointer, luma: UnsafePointer<UInt8>, stride: Int, width: Int, height: Int, intervalMs: Int) {
        let now = Int(g_get_monotonic_time())
        if let stamp = FrameStamp.readStamp(luma: luma, stride: stride, width: width, height: height),
           let age = FrameStamp.age(of: stamp.milliseconds) {
            interval.append(age)
            all.append(age)
            if let sequence = stamp.sequence {
                intervalShown.append((now, sequence))
                shown.append((now, sequence))
            }
            if all.count > 2 * Self.memory { all.removeFirst(all.count - Self.memory) }
            if shown.count > 2 * Self.memory { shown.removeFirst(shown.count - Self.memory) }
        } else {
            intervalUnreadable += 1
            unreadable += 1
        }
        if intervalMs > 0, now - lastReport >= intervalMs * 1000 {
            post(element, samples: interval, unreadable: intervalUnreadable, shown: intervalShown, final: false)
            interval.removeAll(keepingCapacity: true)
            intervalShown.removeAll(keepingCapacity: true)
            intervalUnreadable = 0
            lastReport = now
        }
    }

    /// The figures of the whole stream.
    func finish(_ element: UnsafeMutableRawPointer) {
        post(element, samples: all, unreadable: unreadable, shown: shown, final: true)
    }

    private func post(_ element: UnsafeMutableRawPointer, samples: [Double], unreadable: Int, shown: [(Int, Int)], final: Bool) {
        let stats = LatencyStats(samples)
        let continuity = MeasurementProbes.continuity(shown)
        let structure = c1nk_plugin_structure_new("c1nk-latency")
        c1nk_plugin_structure_set_int64(structure, "frames", Int64(stats.count))
        c1nk_plugin_structure_set_int64(structure, "unreadable", Int64(unreadable))
        for (name, value) in [("p50-ms", stats.p50), ("p95-ms", stats.p95), ("p99-ms", stats.p99), ("max-ms", stats.max),
                              ("longest-freeze-ms", (continuity.longestFreezeMs * 10).rounded() / 10)] {
            c1nk_plugin_structure_set_double(structure, name, value)
        }
        c1nk_plugin_structure_set_int64(structure, "intact", Int64(continuity.intact))
        c1nk_plugin_structure_set_int64(structure, "sent", Int64(continuity.sent))
        c1nk_plugin_structure_set_boolean(structure, "final", final ? 1 : 0)
        c1nk_plugin_post_element_message(element, structure)
    }
}

@_cdecl("c1nk_swift_latency_frame")
func c1nkLatencyFrame(_ element: UnsafeMutableRawPointer, _ meter: UnsafeMutablePointer<UnsafeMutableRawPointer?>,
                      _ luma: UnsafePointer<UInt8>, _ stride: Int32, _ width: Int32, _ height: Int32, _ intervalMs: UInt32) {
    if meter.pointee == nil { meter.pointee = Unmanaged.passRetained(LatencyMeter()).toOpaque() }
    Unmanaged<LatencyMeter>.fromOpaque(meter.pointee!).takeUnretainedValue()
        .frame(element, luma: luma, stride: Int(stride), width: Int(width), height: Int(height), intervalMs: Int(intervalMs))
}

@_cdecl("c1nk_swift_latency_finish")
func c1nkLatencyFinish(_ element: UnsafeMutableRawPointer, _ meter: UnsafeMutableRawPointer) {
    Unmanaged<LatencyMeter>.fromOpaque(meter).takeUnretainedValue().finish(element)
}

@_cdecl("c1nk_swift_latency_free")
func c1nkLatencyFree(_ meter: UnsafeMutableRawPointer) {
    Unmanaged<LatencyMeter>.fromOpaque(meter).release()
}
