import C1nkDoor
import C1nkGLib
import C1nkMedia
import C1nkProbes
import Foundation

/// One call of `--wall-latency`: glass-to-glass read at the screen.
struct WallLatencyRun: Codable {
    var screens: Bool
    /// From the door's capture to the frame the answerer's sink was given.
    var screenMs: LatencyStats
    /// Frames at the sink without a readable stamp (the screens before and
    /// after the video, a veil or drawing over the stamp).
    var unreadable: Int
    /// Glass-to-glass at `video-out` (after decoding, before the display).
    var videoOutMs: LatencyStats
    var cpuPercent: Double
    var displayCPUPercent: Double?
}

/// Each size with the wall display (at the door's size) and without it.
struct WallLatencyRow: Codable {
    var width: Int
    var height: Int
    var off: [WallLatencyRun] = []
    var on: [WallLatencyRun] = []
}

struct WallLatencyFigures: Codable {
    var codec: String
    var rows: [WallLatencyRow]
    /// The goal: the screens add at most this much glass-to-glass at p50…
    var goalAddedP50Ms = 5.0
    /// …and this much of a core.
    var goalAddedCPUPercent = 3.0
}

/// `--wall-latency`: the same call with and without the wall display, at
/// each size, in interleaved rounds; the door's stamps read at the screen
/// through a `shmsink` (`ScreenStampReader`). The display's size is the
/// door's, so the video is not scaled and its stamp stays readable.
struct WallLatencyBenchmark {
    let options: BenchOptions
    var sizes: [(Int, Int)]

    func run(progress: (String) -> Void) throws -> WallLatencyFigures {
        let codec = options.codecs.first ?? .vp8
        var rows = sizes.map { WallLatencyRow(width: $0.0, height: $0.1) }
        for round in 1...options.repeats {
            for index in rows.indices {
                for screens in [false, true] {
                    let (width, height) = (rows[index].width, rows[index].height)
                    progress("wall latency: \(codec.rawValue) \(width)x\(height), screens \(screens ? "on" : "off"), round \(round)/\(options.repeats)…")
                    let run = try call(codec: codec, width: width, height: height, screens: screens)
                    if screens { rows[index].on.append(run) } else { rows[index].off.append(run) }
                }
            }
        }
        return WallLatencyFigures(codec: codec.rawValue, rows: rows)
    }

    private func call(codec: DoorMediaSession.VideoCodec, width: Int, height: Int, screens: Bool) throws -> WallLatencyRun {
        let directory = NSTemporaryDirectory() + "c1nk-wall-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let reader = ScreenStampReader(width: width, height: height, directory: directory)
        var callOptions = options
        callOptions.sink = reader.sinkDescription
        callOptions.screens = screens ? "\(width)x\(height)" : nil
        var benchmark = CallBenchmark(options: callOptions, bench: BenchCase(codec: codec, width: width, height: height))
        benchmark.screenReader = reader
        // shmsink is not fakesink: --screens auto would draw them.
        if !screens { benchmark.extraArguments = ["--screens", "off"] }
        let figures = try benchmark.run()
        let (screen, unreadable) = reader.figures()
        guard screen.count > 0 else { throw BenchError("no stamp was read at the screen (\(unreadable) frames without one)") }
        return WallLatencyRun(screens: screens, screenMs: screen, unreadable: unreadable, videoOutMs: figures.glassToGlassSteadyMs,
                              cpuPercent: figures.cpuPercent, displayCPUPercent: figures.displayCPUPercent)
    }
}

extension WallLatencyFigures {
    func tableLines(runs: Int) -> [String] {
        func median(_ values: [Double]) -> Double {
            let sorted = values.sorted()
            guard !sorted.isEmpty else { return 0 }
            return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
        }
        func cell(_ values: [Double], _ format: String = "%.1f") -> String {
            guard let low = values.min(), let high = values.max() else { return "—" }
            let middle = String(format: format, median(values))
            return values.count == 1 ? middle : middle + " (" + String(format: format, low) + "–" + String(format: format, high) + ")"
        }
        func pad(_ text: String, _ width: Int) -> String {
            text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
        }
        var lines = ["", "wall latency: glass-to-glass at the screen (the sink's input, shmsink), \(codec), display size = the door's,"
                     + " \(runs) call(s) each: median (range)",
                     "  size       screens  p50 ms              p95 ms              video-out p50   CPU %               display threads %"]
        for row in rows {
            for (name, runs) in [("off", row.off), ("on", row.on)] {
                lines.append("  " + pad(name == "off" ? "\(row.width)x\(row.height)" : "", 10) + " " + pad(name, 8)
                             + " " + pad(cell(runs.map(\.screenMs.p50)), 19) + " " + pad(cell(runs.map(\.screenMs.p95)), 19)
                             + " " + pad(cell(runs.map(\.videoOutMs.p50)), 15) + " " + pad(cell(runs.map(\.cpuPercent)), 19)
                             + " " + (name == "on" ? cell(runs.compactMap(\.displayCPUPercent), "%.2f") : "—"))
            }
            let addedMs = median(row.on.map(\.screenMs.p50)) - median(row.off.map(\.screenMs.p50))
            let addedP95 = median(row.on.map(\.screenMs.p95)) - median(row.off.map(\.screenMs.p95))
            let addedCPU = median(row.on.map(\.cpuPercent)) - median(row.off.map(\.cpuPercent))
            let met = addedMs <= goalAddedP50Ms && addedCPU <= goalAddedCPUPercent
            lines.append("  " + pad("", 10) + " " + pad("added", 8)
                         + String(format: " %+.1f ms p50 (goal ≤ %.0f), %+.1f ms p95, %+.1f %% of a core (goal ≤ %.0f): %@",
                                  addedMs, goalAddedP50Ms, addedP95, addedCPU, goalAddedCPUPercent, met ? "met" : "NOT met"))
        }
        return lines
    }
}
