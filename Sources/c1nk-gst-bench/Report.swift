import Foundation

/// Everything one run of the benchmark measured.
struct BenchReport: Codable {
    var machine: String
    var duration: Double
    var latency: UInt
    var sink: String
    var jitter: Int
    var calls: [CallFigures]
    var idle: IdleFigures?
    /// The same with the web page and MQTT on.
    var idleWithWebAndMQTT: IdleFigures? = nil
    var scale: ScaleFigures?
    var network: NetworkFigures?
    var audio: AudioFigures? = nil
    var uplink: UplinkFigures? = nil
    var wallLatency: WallLatencyFigures? = nil
    var rtsp: RTSPFigures? = nil
    var home: HomeBenchmark.Figures? = nil

    static func machineDescription() -> String {
        let cpuinfo = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        let model = cpuinfo.split(separator: "\n").first { $0.hasPrefix("model name") }?
            .split(separator: ":", maxSplits: 1).last?.trimmingCharacters(in: .whitespaces) ?? "unknown CPU"
        return "\(model), \(ProcessInfo.processInfo.activeProcessorCount) cores"
    }

    func json() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return String(decoding: try! encoder.encode(self), as: UTF8.self)
    }

    func table() -> String {
        func ms(_ value: Double?) -> String { value.map { String(format: "%.0f", $0) } ?? "—" }
        func ms1(_ value: Double) -> String { String(format: "%.1f", value) }
        func ratio(_ a: Double, _ b: Double?) -> String {
            guard let b, b > 0 else { return "—" }
            return String(format: "%.2f×", a / b)
        }
        if idle != nil, calls.isEmpty {
            return (["c1nk-gst benchmark — \(machine)"] + idleLines()).joined(separator: "\n")
        }
        if let uplink, calls.isEmpty {
            return (["c1nk-gst benchmark — \(machine)", ""] + uplink.table()).joined(separator: "\n")
        }
        if let network, calls.isEmpty {
            return (["c1nk-gst benchmark — \(machine)", ""] + network.table()).joined(separator: "\n")
        }
        if let home, calls.isEmpty {
            return (["c1nk-gst benchmark — \(machine)"] + home.tableLines()).joined(separator: "\n")
        }
        if let rtsp, calls.isEmpty {
            return (["c1nk-gst benchmark — \(machine)", "calls of \(Int(duration)) s at 30 fps on loopback, jitterbuffer \(latency) ms"]
                    + rtsp.tableLines()).joined(separator: "\n")
        }
        if let wallLatency, calls.isEmpty {
            let runs = wallLatency.rows.first?.on.count ?? 0
            return (["c1nk-gst benchmark — \(machine)", "calls of \(Int(duration)) s at 30 fps on loopback, jitterbuffer \(latency) ms"]
                    + wallLatency.tableLines(runs: runs)).joined(separator: "\n")
        }
        var lines = ["c1nk-gst benchmark — \(machine)",
                     "calls of \(Int(duration)) s at 30 fps on loopback, jitterbuffer \(latency) ms, sink \"\(sink)\"" + (jitter > 0 ? ", door jitter 0–\(jitter) ms" : ""), ""]
        lines.append("decode latency (ms)             p50    p95    p99    max │ baseline p50   ratio")
        for call in calls {
            let name = "\(call.codec) \(call.width)x\(call.height)".padding(toLength: 26, withPad: " ", startingAt: 0)
            lines.append("  \(name) \(pad(ms1(call.decodeMs.p50))) \(pad(ms1(call.decodeMs.p95))) \(pad(ms1(call.decodeMs.p99))) \(pad(ms1(call.decodeMs.max))) │ \(pad(call.baseline.map { ms1($0.decodeMs.p50) } ?? "—", 12)) \(pad(ratio(call.decodeMs.p50, call.baseline?.decodeMs.p50), 7))")
        }
        lines.append("")
        lines.append("glass-to-glass (ms)             p50    p95    p99    max │ steady p50  p95 │ floor p50  stamps read")
        for call in calls {
            let name = "\(call.codec) \(call.width)x\(call.height)".padding(toLength: 26, withPad: " ", startingAt: 0)
            let g = call.glassToGlassMs
            let steady = call.glassToGlassSteadyMs
            lines.append("  \(name) \(pad(ms(g.p50))) \(pad(ms(g.p95))) \(pad(ms(g.p99))) \(pad(ms(g.max))) │ \(pad(ms(steady.p50), 10)) \(pad(ms(steady.p95), 4)) │ \(pad(call.baseline.map { ms($0.glassToGlassMs.p50) } ?? "—", 9))  \(g.count)/\(g.count + call.unreadableStamps)")
        }
        lines.append("")
        lines.append("call                       ring→frame ring→media accept→audio │ CPU %  baseline  ratio │ peak RSS  frames (expected) late")
        for call in calls {
            let name = "\(call.codec) \(call.width)x\(call.height)".padding(toLength: 24, withPad: " ", startingAt: 0)
            let baselineCPU = call.baseline?.cpuPercent
            lines.append("  \(name) \(pad(ms(call.ringToFirstFrameMs), 10)) \(pad(ms(call.ringToMediaConnectedMs), 10)) \(pad(ms(call.acceptToAudioMs), 12)) │ \(pad(String(format: "%.1f", call.cpuPercent), 5)) \(pad(baselineCPU.map { String(format: "%.1f", $0) } ?? "—", 9)) \(pad(ratio(call.cpuPercent, baselineCPU), 6)) │ \(pad(String(format: "%.0f MB", call.peakRSSMB), 8))  \(call.framesDecoded) (\(call.framesExpected)) \(call.framesDroppedLate.map(String.init) ?? "—")")
        }
        for call in calls {
            if let display = call.displayCPUPercent {
                lines.append(String(format: "  wall display threads during the %@ %dx%d call: %.2f %% of a core", call.codec, call.width, call.height, display))
            }
        }
        lines += idleLines()
        if let scale { lines += scale.tableLines() }
        if let audio { lines += audio.tableLines() }
        return lines.joined(separator: "\n")
    }

    /// The idle rows: plain, and with the web page and MQTT on.
    func idleLines() -> [String] {
        guard let idle else { return [] }
        var lines = ["", IdleBenchmark.line(idle)]
        if let display = idle.displayCPUPercent {
            lines.append(String(format: "  wall display threads while idle: %.2f %% of a core", display))
        }
        if let idleWithWebAndMQTT { lines.append(IdleBenchmark.line(idleWithWebAndMQTT)) }
        return lines
    }

    private func pad(_ text: String, _ width: Int = 6) -> String {
        text.count >= width ? text : String(repeating: " ", count: width - text.count) + text
    }
}
