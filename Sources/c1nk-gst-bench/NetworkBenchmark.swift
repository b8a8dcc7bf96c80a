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
        for latency in options.networkLatencies {
            for codec in options.codecs {
                for scenario in Self.scenarios {
                    progress("network: \(codec.rawValue), \(scenario.name), --latency \(latency)…")
                    var call = CallBenchmark(options: options, bench: BenchCase(codec: codec, width: 640, height: 480))
                    call.network = scenario.network
                    call.latency = latency
                    var result = try call.run()
                    result.network = scenario.name
                    figures.calls.append(result)
                }
            }
        }
        for codec in options.codecs {
            for round in 1...options.setupRounds {
                progress("set-up: \(codec.rawValue) call \(round)/\(options.setupRounds)…")
                var quick = options
                quick.duration = 2
                figures.setup.append(try CallBenchmark(options: quick, bench: BenchCase(codec: codec, width: 640, height: 480)).run())
            }
        }
        return figures
    }
}

struct NetworkFigures: Codable {
    var calls: [CallFigures] = []
    var setup: [CallFigures] = []

    func table() -> [String] {
        func f(_ value: Double?, _ format: String = "%.0f") -> String { value.map { String(format: format, $0) } ?? "—" }
        func pad(_ text: String, _ width: Int) -> String { text.count >= width ? text : String(repeating: " ", count: width - text.count) + text }
        var lines: [String] = []
        if !calls.isEmpty {
            lines.append("network (640x480, 30 fps; loss on the door's first send, RTX passes)")
            lines.append("  codec latency  network                 intact %   intact/sent  longest freeze  g2g p50  g2g p95  keyframe req")
            for call in calls {
                let intact = call.framesSent.map { $0 > 0 ? Double(call.framesIntact ?? 0) * 100 / Double($0) : 0 }
                lines.append("  " + call.codec.padding(toLength: 5, withPad: " ", startingAt: 0) + " " + pad("\(call.latency ?? 0) ms", 7) + "  "
                    + (call.network ?? "").padding(toLength: 22, withPad: " ", startingAt: 0) + " " + pad(f(intact, "%.1f"), 8)
                    + " " + pad("\(call.framesIntact ?? 0)/\(call.framesSent ?? 0)", 13) + " " + pad(f(call.longestFreezeMs) + " ms", 15)
                    + " " + pad(f(call.glassToGlassMs.p50), 8) + " " + pad(f(call.glassToGlassMs.p95), 8) + " " + pad("\(call.keyframeRequests ?? 0)", 13))
            }
        }
        if !setup.isEmpty {
            lines.append("")
            lines.append("set-up, loss-free, 640x480 (ms; median of \(setup.count / max(1, Set(setup.map { $0.codec }).count)) calls per codec)")
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
        }
        return lines
    }
}
