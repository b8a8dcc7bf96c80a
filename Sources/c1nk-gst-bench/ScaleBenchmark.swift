import C1nkGLib
import C1nkLocal
import Foundation

/// What the answerers of the scale section do with each call.
enum ScalePipeline: String, Codable, CaseIterable {
    /// `--pipeline record`: the door's video and voice into a file, nothing decoded.
    case record
    /// `--pipeline display` into fakesink: decoded, as an indoor panel shows it,
    /// with the voice played and the microphone encoded.
    case decoded

    /// The issue's goals on two cores.
    var goal: Int { self == .record ? 50 : 8 }

    func arguments(recording path: String) -> [String] {
        switch self {
        case .record: return ["--pipeline", "record", "--record", path]
        case .decoded:
            return ["--pipeline", "display", "--sink", "fakesink", "--audio-sink", "fakesink sync=true",
                    "--audio-source", "audiotestsrc is-live=true wave=sine freq=660 volume=0.3"]
        }
    }
}

/// N calls at once, each a door and an answerer process of its own, all on
/// this machine: the figure for a building server.
struct ScaleStep: Codable {
    var calls: Int
    /// Sum over the answerers, % of one core.
    var answererCPUPercent: Double
    /// The doors (pre-encoded: no encoder per frame) and their servers, in
    /// the benchmark's own process (they share the machine).
    var doorsCPUPercent: Double
    /// Frames at the answerer's `video-out` over 30 a second, worst call.
    var worstFrameRatio: Double
    var pipeline: String?
    var medianFrameRatio: Double?
    /// Calls whose video reached the answerer at all.
    var callsWithVideo: Int?
    /// Sums over the answerers, in the call: resident set, and proportional
    /// set (shared pages counted once across them).
    var answererRSSMB: Double?
    var answererPSSMB: Double?
    /// One answerer connected and waiting, before the ring (median).
    var idlePSSPerAnswererMB: Double?
    var threadsPerAnswerer: Int?
    /// Context switches of all an answerer's threads a second (median): the
    /// jitterbuffers' timers, the streaming threads, the main loop waking.
    var wakeupsPerAnswererPerSecond: Double?
    /// The whole machine, % of one core (200 % = two cores full), and the
    /// 1-minute load average before the ring.
    var machineBusyPercent: Double?
    var loadAverage: Double?
    /// Answerers that crashed, failed or had to be stopped.
    var failedAnswerers: Int?
}

/// y = perCall × calls + intercept, least squares over the steps that kept
/// their frames; r² says how straight the line is.
struct ScaleFit: Codable {
    var perCall: Double
    var intercept: Double
    var r2: Double

    init(_ points: [(x: Double, y: Double)]) {
        let n = Double(points.count)
        guard points.count >= 2 else {
            perCall = points.first.map { $0.y / max(1, $0.x) } ?? 0
            intercept = 0
            r2 = 1
            return
        }
        let mx = points.map(\.x).reduce(0, +) / n
        let my = points.map(\.y).reduce(0, +) / n
        let covariance = points.map { ($0.x - mx) * ($0.y - my) }.reduce(0, +)
        let variance = points.map { ($0.x - mx) * ($0.x - mx) }.reduce(0, +)
        let slope = variance > 0 ? covariance / variance : 0
        let offset = my - slope * mx
        perCall = slope
        intercept = offset
        let total = points.map { ($0.y - my) * ($0.y - my) }.reduce(0, +)
        let residual = points.map { $0.y - (slope * $0.x + offset) }.map { $0 * $0 }.reduce(0, +)
        r2 = total > 0 ? 1 - residual / total : 1
    }
}

struct ScaleSection: Codable {
    var pipeline: String
    var goal: Int
    var steps: [ScaleStep]
    /// Most calls at once with every call keeping ≥ 95 % of its frames.
    var maximumCalls: Int
    var cpu: ScaleFit
    var pss: ScaleFit
    var rss: ScaleFit
}

struct ScaleFigures: Codable {
    /// The record-only section's steps, maximum and CPU slope (as before the decoded section).
    var steps: [ScaleStep]
    var maximumCalls: Int
    /// Answerer CPU added by each extra call (% of one core), by linear fit.
    var cpuPerExtraCall: Double
    var sections: [ScaleSection]?
    var repeats: Int?
}

struct ScaleBenchmark {
    let maxCalls: Int
    let duration: Double
    var pipelines: [ScalePipeline] = ScalePipeline.allCases
    /// Runs of each step; each figure is the median of the runs.
    var repeats = 1

    static let ladder = [1, 2, 4, 8, 16, 32, 50, 60]

    /// 1, 2, 4, 8, … up to `maxCalls` (itself included).
    var counts: [Int] {
        Self.ladder.filter { $0 < maxCalls } + (maxCalls > 0 ? [maxCalls] : [])
    }

    func run(progress: (String) -> Void = { _ in }) throws -> ScaleFigures {
        var sections: [ScaleSection] = []
        for pipeline in pipelines {
            var steps: [ScaleStep] = []
            for calls in counts {
                progress("  \(pipeline.rawValue): \(calls) call(s) at once…")
                let runs = try (0..<repeats).map { _ in try ScaleStepRun(calls: calls, pipeline: pipeline, duration: duration).run() }
                let step = Self.median(runs)
                steps.append(step)
                if step.worstFrameRatio < 0.95 { break }
            }
            let good = steps.filter { $0.worstFrameRatio >= 0.95 }
            func fit(_ value: (ScaleStep) -> Double?) -> ScaleFit {
                ScaleFit(good.compactMap { step in value(step).map { (Double(step.calls), $0) } })
            }
            sections.append(ScaleSection(pipeline: pipeline.rawValue, goal: pipeline.goal, steps: steps,
                                         maximumCalls: good.map(\.calls).max() ?? 0, cpu: fit { $0.answererCPUPercent },
                                         pss: fit { $0.answererPSSMB }, rss: fit { $0.answererRSSMB }))
        }
        let record = sections.first { $0.pipeline == ScalePipeline.record.rawValue } ?? sections.first
        return ScaleFigures(steps: record?.steps ?? [], maximumCalls: record?.maximumCalls ?? 0,
                            cpuPerExtraCall: record?.cpu.perCall ?? 0, sections: sections, repeats: repeats)
    }

    /// Each figure the median of the runs; the worst call's ratio too.
    static func median(_ runs: [ScaleStep]) -> ScaleStep {
        guard runs.count > 1 else { return runs[0] }
        func m(_ value: (ScaleStep) -> Double?) -> Double? {
            let values = runs.compactMap(value)
            return values.isEmpty ? nil : ScaleStepRun.median(values)
        }
        var step = runs[runs.count / 2]
        step.answererCPUPercent = m { $0.answererCPUPercent } ?? 0
        step.doorsCPUPercent = m { $0.doorsCPUPercent } ?? 0
        step.worstFrameRatio = m { $0.worstFrameRatio } ?? 0
        step.medianFrameRatio = m { $0.medianFrameRatio }
        step.answererRSSMB = m { $0.answererRSSMB }
        step.answererPSSMB = m { $0.answererPSSMB }
        step.idlePSSPerAnswererMB = m { $0.idlePSSPerAnswererMB }
        step.machineBusyPercent = m { $0.machineBusyPercent }
        step.wakeupsPerAnswererPerSecond = m { $0.wakeupsPerAnswererPerSecond }
        step.loadAverage = m { $0.loadAverage }
        step.failedAnswerers = runs.compactMap(\.failedAnswerers).max()
        return step
    }
}

extension ScaleFigures {
    func tableLines() -> [String] {
        var lines = [""]
        for section in sections ?? [] {
            lines.append("\(section.pipeline) calls at once (pre-encoded doors; an answerer process per call)\(repeats.map { $0 > 1 ? ", median of \($0) runs" : "" } ?? ""):")
            for step in section.steps {
                lines.append(String(format: "  %2d call(s): answerers %6.1f %% CPU (%.1f a call), PSS %6.0f MB (RSS %6.0f), %d threads and %.0f wake-ups/s each; doors %5.1f %%; machine %5.1f %%; frames kept: worst %3.0f %%, median %3.0f %%%@",
                                    step.calls, step.answererCPUPercent, step.answererCPUPercent / Double(step.calls),
                                    step.answererPSSMB ?? 0, step.answererRSSMB ?? 0, step.threadsPerAnswerer ?? 0, step.wakeupsPerAnswererPerSecond ?? 0,
                                    step.doorsCPUPercent, step.machineBusyPercent ?? 0,
                                    step.worstFrameRatio * 100, (step.medianFrameRatio ?? 0) * 100,
                                    (step.failedAnswerers ?? 0) > 0 ? " — \(step.failedAnswerers!) answerer(s) failed" as NSString : "" as NSString))
            }
            lines.append(String(format: "  → %d call(s) at once keeping ≥ 95 %% of frames (goal %d); fit: CPU %.2f %%/call + %.1f (r² %.3f), PSS %.1f MB/call + %.0f (r² %.3f)",
                                section.maximumCalls, section.goal, section.cpu.perCall, section.cpu.intercept, section.cpu.r2,
                                section.pss.perCall, section.pss.intercept, section.pss.r2))
        }
        return lines
    }
}
