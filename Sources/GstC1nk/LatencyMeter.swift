import C1nkMedia
import C1nkProbes
import CGStreamer

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

    func frame(_ element: PluginElement, luma: UnsafePointer<UInt8>, stride: Int, width: Int, height: Int, intervalMs: Int) {
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
    func finish(_ element: PluginElement) {
        post(element, samples: all, unreadable: unreadable, shown: shown, final: true)
    }

    private func post(_ element: PluginElement, samples: [Double], unreadable: Int, shown: [(Int, Int)], final: Bool) {
        let stats = LatencyStats(samples)
        let continuity = MeasurementProbes.continuity(shown)
        let structure = MessageStructure(named: "c1nk-latency")
        structure.set("frames", Int64(stats.count))
        structure.set("unreadable", Int64(unreadable))
        for (name, value) in [("p50-ms", stats.p50), ("p95-ms", stats.p95), ("p99-ms", stats.p99), ("max-ms", stats.max),
                              ("longest-freeze-ms", (continuity.longestFreezeMs * 10).rounded() / 10)] {
            structure.set(name, value)
        }
        structure.set("intact", Int64(continuity.intact))
        structure.set("sent", Int64(continuity.sent))
        structure.set("final", final)
        element.post(structure)
    }
}
