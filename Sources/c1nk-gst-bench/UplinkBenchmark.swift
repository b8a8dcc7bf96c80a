import C1nkDoor
import C1nkMedia
import C1nkProbes
import Foundation

/// The narrow-uplink section: the door behind a home router's uplink (a
/// drop-tail queue at 2000, 1000, 600 and 300 kbit/s), the simulated door
/// following the answerer's transport-wide congestion feedback with its
/// encoder, and headless Chromium (libwebrtc's own controller) behind the
/// same bottleneck, 640x480.
struct UplinkBenchmark {
    static let rates = [2000, 1000, 600, 300]
    let options: BenchOptions

    func run(progress: (String) -> Void) throws -> UplinkFigures {
        var figures = UplinkFigures(queueMilliseconds: options.uplinkQueueMilliseconds)
        var doors = ["simulated"]
        if options.uplinkBrowser {
            if BrowserDoor.executable != nil { doors.append("browser") } else { progress("uplink: no chromium installed; the browser rows are left out") }
        }
        for round in 1...options.repeats {
            for door in doors {
                for codec in options.codecs {
                    for kbps in options.uplinkRates {
                        progress("uplink: \(door) door, \(codec.rawValue), \(kbps) kbit/s"
                                 + (options.repeats > 1 ? ", round \(round)/\(options.repeats)…" : "…"))
                        var call = CallBenchmark(options: options, bench: BenchCase(codec: codec, width: 640, height: 480))
                        call.network.uplinkKbps = kbps
                        call.network.uplinkQueueMilliseconds = options.uplinkQueueMilliseconds
                        call.adapts = true
                        call.browser = door == "browser"
                        figures.calls.append(try call.run())
                    }
                }
            }
        }
        return figures
    }
}

struct UplinkFigures: Codable {
    var queueMilliseconds: Int
    var calls: [CallFigures] = []

    func table() -> [String] {
        func f(_ value: Double?, _ format: String = "%.0f") -> String { value.map { String(format: format, $0) } ?? "—" }
        func pad(_ text: String, _ width: Int) -> String { text.count >= width ? text : String(repeating: " ", count: width - text.count) + text }
        func median(_ values: [Double]) -> Double? { NetworkFigures.median(values) }
        var lines = ["narrow uplink (640x480, 30 fps; the door's packets through a \(queueMilliseconds) ms drop-tail queue at the rate; the door follows"
                     + " transport-wide congestion feedback)",
                     "  goals at 600 kbit/s: ≥ 95 % intact, glass-to-glass p95 ≤ 250 ms, no freeze over 500 ms after the first 3 s",
                     "  intact: of the frames the door's camera drew, from the first sent to the last drawn 1 s before the call's end (frames its"
                     + " encoder skipped count as lost); fps: intact frames a second; glass-to-glass over those frames (every run of a row)",
                     "  door      codec  kbit/s  intact %  (intact/drawn)   fps  freeze ms (after 3 s)  g2g p50  g2g p95  queue p95 ms  dropped  encoder kbit/s each second"]
        var rows: [(door: String, codec: String, kbps: Int)] = []
        for call in calls where !rows.contains(where: { $0 == (call.door ?? "", call.codec, call.uplinkKbps ?? 0) }) {
            rows.append((call.door ?? "", call.codec, call.uplinkKbps ?? 0))
        }
        for row in rows {
            let runs = calls.filter { ($0.door ?? "", $0.codec, $0.uplinkKbps ?? 0) == row }
            // Every run's frames as one: percentiles over frames, not over the runs' own figures.
            let counted = runs.compactMap(\.drawnFrames)
            let frames = FrameTally(pooling: counted)
            let ages = LatencyStats(runs.flatMap { $0.drawnFrameAgesMs ?? [] })
            let last = runs.last!
            let encoder = (last.encoderKbps ?? []).map(String.init).joined(separator: " ")
            let estimate = (last.estimateKbps ?? []).isEmpty ? "" : "  (estimate: " + (last.estimateKbps ?? []).map(String.init).joined(separator: " ") + ")"
            lines.append("  " + row.door.padding(toLength: 9, withPad: " ", startingAt: 0) + " " + row.codec.padding(toLength: 5, withPad: " ", startingAt: 0)
                         + "  " + pad("\(row.kbps)", 6) + "  " + pad(counted.isEmpty ? "—" : f(frames.intactPercent, "%.1f"), 8)
                         + "  " + pad("(\(frames.intact)/\(frames.drawn))", 14) + "  " + pad(f(counted.isEmpty ? nil : frames.shownPerSecond, "%.1f"), 4)
                         + "  " + pad(f(median(runs.compactMap(\.longestFreezeMs))) + " (" + f(median(runs.compactMap(\.longestFreezeAfterStartMs))) + ")", 21)
                         + "  " + pad(f(ages.count > 0 ? ages.p50 : nil), 7) + "  " + pad(f(ages.count > 0 ? ages.p95 : nil), 7)
                         + "  " + pad(f(median(runs.compactMap { $0.queueDelayMs?.p95 })), 12) + "  " + pad(f(median(runs.compactMap { $0.uplinkDropped.map(Double.init) })), 7)
                         + "  " + encoder + estimate)
        }
        return lines
    }
}
