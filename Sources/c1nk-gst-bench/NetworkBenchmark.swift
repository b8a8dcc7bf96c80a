import C1nkDoor
import C1nkMedia
import Foundation

/// The network section: calls through the simulated door's impaired
/// network (loss on first send, bursts, an outage) for VP8 and H.264, and
/// the set-up breakdown of loss-free calls.
struct NetworkBenchmark {
    struct Scenario {
        var name: String
        var network: NetworkImpairment
    }

    static var scenarios: [Scenario] {
        var result: [Scenario] = []
        for loss in [0.0, 1, 3, 5, 10] {
            var network = NetworkImpairment()
            network.lossPercent = loss
            network.seed = 7
            result.append(Scenario(name: loss == 0 ? "no loss" : String(format: "%.0f %% random", loss), network: network))
        }
        var bursts = NetworkImpairment()
        bursts.lossPercent = 5
        bursts.burstLength = 4
        bursts.seed = 7
        result.append(Scenario(name: "5 % in bursts of 4", network: bursts))
        var outage = NetworkImpairment()
        outage.outageAt = 3
        outage.outageMilliseconds = 500
        result.append(Scenario(name: "500 ms outage", network: outage))
        return result
    }

    let options: BenchOptions

    func run(progress: (String) -> Void) throws -> NetworkFigures {
        var figures = NetworkFigures()
        // Rounds outermost: a row's runs are spread over the whole run, so a
        // busy minute on this shared machine does not decide a row alone.
        for round in 1...options.repeats {
            for latency in options.networkLatencies {
                for codec in options.codecs {
                    for (index, scenario) in Self.scenarios.enumerated() {
                        progress("network: \(codec.rawValue), \(scenario.name), --latency \(latency)"
                                 + (options.repeats > 1 ? ", round \(round)/\(options.repeats)…" : "…"))
                        var call = CallBenchmark(options: options, bench: BenchCase(codec: codec, width: 640, height: 480))
                        call.network = scenario.network
                        // Each later round loses other packets (round 1 keeps seed 7, as single runs do).
                        if round > 1 { call.network.seed = UInt64(7 + 1000 * round + index) }
                        call.latency = latency
                        var result = try call.run()
                        result.network = scenario.name
                        figures.calls.append(result)
                    }
                }
            }
        }
        // Each call is the first of a new answerer process. The processes of
        // one codec share a device id folder, as a restarted service does:
        // each finds the codec of the call before (`VideoCodecMemory`). Call 0
        // has nothing remembered: a door whose codec this device never saw.
        let setupRounds = max(options.setupRounds, options.repeats)
        var folders: [String: String] = [:]
        defer { for folder in folders.values { try? FileManager.default.removeItem(atPath: folder) } }
        for round in 0...setupRounds {
            for codec in options.codecs {
                progress("set-up: \(codec.rawValue) call \(round)/\(setupRounds)\(round == 0 ? " (nothing remembered)" : "")…")
                var quick = options
                quick.duration = 2
                var call = CallBenchmark(options: quick, bench: BenchCase(codec: codec, width: 640, height: 480))
                let folder = folders[codec.rawValue] ?? NSTemporaryDirectory() + "c1nk-bench-state-" + UUID().uuidString.prefix(8)
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
                folders[codec.rawValue] = folder
                call.stateFolder = folder
                let result = try call.run()
                if round == 0 { figures.setupUnremembered.append(result) } else { figures.setup.append(result) }
            }
        }
        return figures
    }
}

struct NetworkFigures: Codable {
    var calls: [CallFigures] = []
    var setup: [CallFigures] = []
    /// The first set-up call of each codec: its process found no codec remembered.
    var setupUnremembered: [CallFigures] = []

    static func median(_ values: [Double]) -> Double? {
        let sorted = values.sorted()
        return sorted.isEmpty ? nil : sorted[sorted.count / 2]
    }

    func table() -> [String] {
        func f(_ value: Double?, _ format: String = "%.0f") -> String { value.map { String(format: format, $0) } ?? "—" }
        func pad(_ text: String, _ width: Int) -> String { text.count >= width ? text : String(repeating: " ", count: width - text.count) + text }
        var lines: [String] = []
        if !calls.isEmpty {
            // One line per row; with repeats, the median and (min–max) of its runs.
            var rows: [(codec: String, latency: UInt, network: String)] = []
            for call in calls where !rows.contains(where: { $0 == (call.codec, call.latency ?? 0, call.network ?? "") }) {
                rows.append((call.codec, call.latency ?? 0, call.network ?? ""))
            }
            let repeated = calls.count > rows.count
            func cell(_ values: [Double], _ format: String) -> String {
                guard let middle = Self.median(values) else { return "—" }
                guard repeated, let low = values.min(), let high = values.max() else { return f(middle, format) }
                return f(middle, format) + " (" + f(low, format) + "–" + f(high, format) + ")"
            }
            lines.append("network (640x480, 30 fps; loss on the door's first send, RTX passes)"
                         + (repeated ? "; median (range) of \(calls.count / rows.count) runs" : ""))
            let w = repeated ? [20, 22, 16, 16, 13] : [8, 15, 8, 8, 13]
            lines.append("  codec latency  network               " + pad("intact %", w[0]) + " " + pad("longest freeze ms", w[1])
                         + " " + pad("g2g p50", w[2]) + " " + pad("g2g p95", w[3]) + " " + pad("keyframe req", w[4]) + "  intact/sent")
            for row in rows {
                let runs = calls.filter { ($0.codec, $0.latency ?? 0, $0.network ?? "") == row }
                let intact = runs.compactMap { call in call.framesSent.map { $0 > 0 ? Double(call.framesIntact ?? 0) * 100 / Double($0) : 0 } }
                lines.append("  " + row.codec.padding(toLength: 5, withPad: " ", startingAt: 0) + " " + pad("\(row.latency) ms", 7) + "  "
                    + row.network.padding(toLength: 21, withPad: " ", startingAt: 0) + " " + pad(cell(intact, "%.1f"), w[0])
                    + " " + pad(cell(runs.compactMap(\.longestFreezeMs), "%.0f"), w[1])
                    + " " + pad(cell(runs.map(\.glassToGlassMs.p50), "%.0f"), w[2]) + " " + pad(cell(runs.map(\.glassToGlassMs.p95), "%.0f"), w[3])
                    + " " + pad(cell(runs.map { Double($0.keyframeRequests ?? 0) }, "%.0f"), w[4])
                    + "  " + runs.map { "\($0.framesIntact ?? 0)/\($0.framesSent ?? 0)" }.joined(separator: " "))
            }
        }
        if !setup.isEmpty {
            lines.append("")
            lines.append("set-up, loss-free, 640x480 (ms; median of \(setup.count / max(1, Set(setup.map { $0.codec }).count)) calls per codec,")
            lines.append("each the first of a process that found the codec of the call before)")
            lines.append("  codec  ring→first frame  ring→offer  offer→answer  answer→connected  connected→first frame")
            for codec in Set(setup.map(\.codec)).sorted() {
                let runs = setup.filter { $0.codec == codec }
                func median(_ values: [Double]) -> Double? {
                    let sorted = values.sorted()
                    return sorted.isEmpty ? nil : sorted[sorted.count / 2]
                }
                let total = median(runs.compactMap(\.ringToFirstFrameMs))
                let steps = ["offerToAnswer", "answerToConnected", "connectedToFirstFrame"].map { key in median(runs.compactMap { $0.setupMs?[key] }) }
                let known = steps.compactMap { $0 }.reduce(0, +)
                let ringToOffer = total.map { $0 - known }
                lines.append("  " + codec.padding(toLength: 5, withPad: " ", startingAt: 0) + "  " + pad(f(total), 16) + "  " + pad(f(ringToOffer), 10)
                    + "  " + pad(f(steps[0], "%.1f"), 12) + "  " + pad(f(steps[1]), 16) + "  " + pad(f(steps[2]), 21))
            }
            for call in setupUnremembered.sorted(by: { $0.codec < $1.codec }) {
                lines.append("  " + call.codec.padding(toLength: 5, withPad: " ", startingAt: 0) + "  " + pad(f(call.ringToFirstFrameMs), 16)
                    + "  (one call whose process found no codec remembered)")
            }
            lines.append("")
            lines.append("offer→answer by step (ms; medians)")
            lines.append("  codec  build  prepare  start  remote description  create answer")
            for codec in Set(setup.map(\.codec)).sorted() {
                let runs = setup.filter { $0.codec == codec }
                let steps = ["answerBuild", "answerPrepare", "answerStart", "answerRemoteDescription", "answerCreate"].map { key in
                    Self.median(runs.compactMap { $0.setupMs?[key] })
                }
                lines.append("  " + codec.padding(toLength: 5, withPad: " ", startingAt: 0) + "  " + pad(f(steps[0], "%.1f"), 5)
                    + "  " + pad(f(steps[1], "%.1f"), 7) + "  " + pad(f(steps[2], "%.1f"), 5) + "  " + pad(f(steps[3], "%.1f"), 18)
                    + "  " + pad(f(steps[4], "%.1f"), 13))
            }
        }
        return lines
    }
}
