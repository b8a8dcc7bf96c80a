import C1nkDoor
import C1nkProbes
import Foundation

/// `--web-phone`: the web page's figures with the browser as a phone on a
/// network of its own (`PhoneNetwork`: a namespace and a veth pair, or the
/// jitter relay), one row per kind of bad Wi-Fi, each from a fresh
/// answerer, browser and namespace.
struct WebPhoneFigures: Codable, PrettyJSON {
    var rows: [WebFigures]

    static let links: [(link: PhoneLink, dropOut: Bool)] = [
        (.clean, false),
        (PhoneLink(lossPercent: 3), false),
        (PhoneLink(lossPercent: 10), false),
        (PhoneLink(burstOfPackets: 5), false),
        (.clean, true),
        (PhoneLink(capKbps: 2000), false),
        (PhoneLink(jitterMs: 30, jitterSpreadMs: 20), false),
    ]

    var table: String {
        var lines = ["Web page on a phone's network (\(rows.first?.runs ?? 0) calls a row, \(rows.first?.codec ?? "VP8") 640x480, headless Chromium in its own network namespace)",
                     "network                      ring→first p50/max   page g2g p50/p95   intact (fps shown)    wall g2g p50/p95   wall intact   freezes     jitter buffer   NACKs   dropped   back after drop-out"]
        for row in rows {
            let network = (row.network ?? "loopback").padding(toLength: 28, withPad: " ", startingAt: 0)
            let first = "\(Int(row.ringToFirstFrameMs.p50))/\(Int(row.ringToFirstFrameMs.max)) ms".padding(toLength: 20, withPad: " ", startingAt: 0)
            let glass = "\(Int(row.browserGlassToGlassMs.p50))/\(Int(row.browserGlassToGlassMs.p95)) ms".padding(toLength: 18, withPad: " ", startingAt: 0)
            let intact = (String(format: "%.1f %% (%.1f)", row.pageFrames.intactPercent, row.pageFrames.shownPerSecond)).padding(toLength: 21, withPad: " ", startingAt: 0)
            let wallGlass = "\(Int(row.wallGlassToGlassMs.p50))/\(Int(row.wallGlassToGlassMs.p95)) ms".padding(toLength: 18, withPad: " ", startingAt: 0)
            let wallIntact = String(format: "%.1f %%", row.wallFrames.intactPercent).padding(toLength: 13, withPad: " ", startingAt: 0)
            let freezes = String(format: "%d (%.1f s)", row.pageStats.freezes, row.pageStats.freezeSeconds).padding(toLength: 11, withPad: " ", startingAt: 0)
            let buffer = String(format: "%.0f ms", row.pageStats.jitterBufferMs).padding(toLength: 15, withPad: " ", startingAt: 0)
            let nacks = String(row.pageStats.nacksSent).padding(toLength: 7, withPad: " ", startingAt: 0)
            let dropped = String(row.droppedPackets ?? 0).padding(toLength: 9, withPad: " ", startingAt: 0)
            let back = row.recoveryMs.map { "p50 \(Int($0.p50)) / max \(Int($0.max)) ms" } ?? "—"
            lines.append("\(network) \(first) \(glass) \(intact) \(wallGlass) \(wallIntact) \(freezes) \(buffer) \(nacks) \(dropped) \(back)")
        }
        return lines.joined(separator: "\n")
    }
}

struct WebPhoneBenchmark {
    let options: BenchOptions

    func run(progress: (String) -> Void) throws -> WebPhoneFigures {
        if let reason = PhoneNetwork.unavailableReason { throw BenchError(reason) }
        var rows: [WebFigures] = []
        for (link, dropOut) in WebPhoneFigures.links {
            progress("web page on a phone's network: \(dropOut ? "a 3 s drop-out" : link.description)…")
            let network = try PhoneNetwork(link)
            defer { network.remove() }
            var rowOptions = options
            if dropOut { rowOptions.duration = max(rowOptions.duration, 10) }
            var row = try WebBenchmark(options: rowOptions).run(progress: progress, network: network, dropOut: dropOut)
            row.droppedPackets = network.droppedPackets
            rows.append(row)
        }
        return WebPhoneFigures(rows: rows)
    }
}
