import C1nkDoor
import C1nkGLib
import C1nkLocal
import C1nkProbes
import Foundation
import Glibc

/// `--web`: the web page in headless Chromium against `c1nk-gst-answer
/// --web-port --measure` and the simulated door (stamped VP8 640x480), page
/// open and logged in: ring → the first frame the page presents, and
/// glass-to-glass at the page (the door's stamp read at each presented
/// frame) beside the same call's glass-to-glass at `video-out` (what the
/// wall display shows, before its own few milliseconds). The page's figure
/// splits at the moment Chromium received the frame's last packet
/// (`requestVideoFrameCallback`'s `receiveTime`): before it, the door, the
/// answerer and the second WebRTC hop; after it, Chromium's jitter buffer,
/// decoder and compositor.
struct WebFigures: Codable, PrettyJSON {
    var runs: Int
    var codec = "VP8"
    /// Ring (the door's `ring`) → the first frame presented in the page.
    var ringToFirstFrameMs: LatencyStats
    /// Over the frames of every call, as the page showed them and at video-out.
    var browserGlassToGlassMs: LatencyStats
    var wallGlassToGlassMs: LatencyStats
    /// The door's stamp's age when Chromium received the frame.
    var browserReceivedMs: LatencyStats
    /// The door's frames drawn while measuring (every call), shown intact in the page and at video-out.
    var pageFrames: FrameTally
    var wallFrames: FrameTally
    /// Chromium's own view of the calls' video (`getStats`), summed over the calls.
    var pageStats = PageVideoStats()
    /// The phone's network (`--web-phone`), nil on loopback.
    var network: String?
    /// A drop-out's end → the first frame the page showed after it, one per call.
    var recoveryMs: LatencyStats?
    /// Packets the phone's network dropped for loss (both ways), by nftables' count.
    var droppedPackets: Int?
    var goalRingToFirstFrameMs = 300.0
    var goalRatio = 1.5

    var table: String {
        let ratio = wallGlassToGlassMs.p50 > 0 ? browserGlassToGlassMs.p50 / wallGlassToGlassMs.p50 : 0
        return """
            Web page (\(runs) calls, \(codec) 640x480, headless Chromium on loopback)
            ring → first frame in the page: p50 \(Int(ringToFirstFrameMs.p50)) ms, max \(Int(ringToFirstFrameMs.max)) ms (goal ≤ \(Int(goalRingToFirstFrameMs)) ms)
            glass-to-glass, page: p50 \(Int(browserGlassToGlassMs.p50)) ms, p95 \(Int(browserGlassToGlassMs.p95)) ms (\(browserGlassToGlassMs.count) frames)
              of which door → received by Chromium: p50 \(Int(browserReceivedMs.p50)) ms, p95 \(Int(browserReceivedMs.p95)) ms (\(browserReceivedMs.count) frames); Chromium's own: the rest
            glass-to-glass, video-out (the wall): p50 \(Int(wallGlassToGlassMs.p50)) ms, p95 \(Int(wallGlassToGlassMs.p95)) ms (\(wallGlassToGlassMs.count) frames)
            intact, of the \(pageFrames.drawn) frames the door drew while measuring: page \(Self.percent(pageFrames)) at \(Self.fps(pageFrames)) fps shown; wall \(Self.percent(wallFrames)) at \(Self.fps(wallFrames)) fps
            page / wall at p50: \(String(format: "%.1f", ratio))× (goal ≤ \(goalRatio)×)
            Chromium: \(pageStats.summary)
            """
    }

    static func percent(_ tally: FrameTally) -> String { String(format: "%.1f %%", tally.intactPercent) + " (\(tally.intact))" }
    static func fps(_ tally: FrameTally) -> String { String(format: "%.1f", tally.shownPerSecond) }
}

struct WebBenchmark {
    let options: BenchOptions
    static let password = "benchmark password"

    /// Each frame read in the page (its sequence number, stamp age and receive age in ms, when shown, the
    /// browser's count of frames presented) and the time of each new stream's first frame (unix ms).
    static func probe(offset: Double) -> String {
        """
        window.__bench = { first: [], frames: [], measure: false, pcs: [] };
        (() => { const Original = window.RTCPeerConnection; if (!Original) return;
          window.RTCPeerConnection = function (...args) { const pc = new Original(...args); window.__bench.pcs.push(pc); return pc; };
          window.RTCPeerConnection.prototype = Original.prototype; })();
        (() => { const offset = \(offset), mask = (1 << 24) - 1; let last = null;
          function age(v, now, meta) {
            const w = v.videoWidth, h = v.videoHeight; if (!w) return;
            const c = age.canvas || (age.canvas = document.createElement('canvas')); c.width = w; c.height = h;
            const g = c.getContext('2d', { willReadFrequently: true }); g.drawImage(v, 0, 0, w, h);
            const bw = Math.floor(w / 28);
            // One row of the door's stamp (FrameStamp): the time at h - 32, the sequence number 24 rows above.
            const row = (top) => { const img = g.getImageData(0, top + 6, w, 4).data;
              const bit = (b) => { let s = 0; const x0 = b * bw + Math.floor(bw / 2) - 2;
                for (let y = 0; y < 4; y++) for (let x = x0; x < x0 + 4; x++) { const i = (y * w + x) * 4; s += (img[i] + img[i + 1] + img[i + 2]) / 3; }
                return s / 16 > 128; };
              if (!bit(0) || bit(1)) return null; let n = 0; for (let b = 2; b < 26; b++) n = n * 2 + (bit(b) ? 1 : 0); return n; };
            const n = row(h - 32), sequence = row(h - 56); if (n === null || sequence === null) return;
            const at = (t) => ((Math.floor(performance.timeOrigin + t - offset) & mask) - n) & mask;
            // The frame's expected display time: the callback's `now` is the
            // start of the rendering frame, which a frame shown at once may
            // have arrived after.
            const a = at(meta && meta.expectedDisplayTime ? meta.expectedDisplayTime : now); if (a >= 10000) return;
            const r = meta && meta.receiveTime ? at(meta.receiveTime) : -1;
            const shownAt = Math.round(performance.timeOrigin + (meta && meta.expectedDisplayTime ? meta.expectedDisplayTime : now));
            window.__bench.frames.push([sequence, a, r < 10000 ? r : -1, shownAt, meta && meta.presentedFrames ? meta.presentedFrames : -1]); }
          function frame(v, stream) { v.requestVideoFrameCallback((now, meta) => {
              if (v.srcObject !== stream) return;
              if (!stream.__first) { stream.__first = true; window.__bench.first.push(performance.timeOrigin + now); }
              if (window.__bench.measure) age(v, now, meta);
              frame(v, stream); }); }
          setInterval(() => { const v = document.getElementById('video'); if (!v || v.srcObject === last) return;
            last = v.srcObject; if (last) frame(v, last); }, 2); })();
        """
    }

    /// `network`: the page's browser on a phone's network of its own, the
    /// answerer gathering on its side of it too; `dropOut`: 3 s of nothing
    /// on that network, 2 s into each call's measuring.
    func run(progress: (String) -> Void, network: PhoneNetwork? = nil, dropOut: Bool = false) throws -> WebFigures {
        // VP8 unless --codec h264 alone is asked for.
        let h264 = options.codecs == [.h264]
        let rig = try WebBenchRig(door: { if h264 { $0.media.codec = .h264 } }, network: network,
                                  probe: Self.probe(offset: Self.realtimeMinusMonotonic()))
        defer { withExtendedLifetime(rig) {} }
        let door = rig.door, page = rig.page, events = rig.events
        var firstFrames: [Double] = [], ages: [Double] = [], received: [Double] = [], wall: [Double] = []
        var pageTallies: [FrameTally] = [], wallTallies: [FrameTally] = []
        var stats = PageVideoStats(), recoveries: [Double] = []
        let runs = max(3, options.repeats)
        for run in 1...runs {
            progress("web page: call \(run)/\(runs)…")
            let before = (try page.evaluate("window.__bench.first.length") as? Int) ?? 0
            let connectionsBefore = (try page.evaluate("window.__bench.pcs.length") as? Int) ?? 0
            let rang = Date().timeIntervalSince1970 * 1000
            door.ring()
            guard MainContext.run(timeout: 10, until: { ((try? page.evaluate("window.__bench.first.length")) as? Int ?? 0) > before }) else {
                throw BenchError("no frame in the page")
            }
            let first = (try page.evaluate("window.__bench.first[\(before)]") as? NSNumber)?.doubleValue ?? rang
            firstFrames.append(first - rang)
            guard let stamped = door.stampedFrames else { throw BenchError("the door's camera stamps no frames") }
            try page.evaluate("document.getElementById('accept').click(); window.__bench.frames = []; window.__bench.measure = true")
            // The door's frames drawn while measuring, each counted in the page and at the wall; the
            // page keeps reading a second longer, for the last of them on their way.
            let firstDrawn = stamped.count + 1
            var linkBackAt: Double?
            if dropOut, let network {
                MainContext.spin(2)
                try network.startDropOut()
                MainContext.spin(3)
                try network.endDropOut()
                linkBackAt = Date().timeIntervalSince1970 * 1000
                MainContext.spin(max(1, options.duration - 5))
            } else {
                MainContext.spin(options.duration)
            }
            let lastDrawn = stamped.count
            MainContext.spin(1)
            try page.evaluate("window.__bench.measure = false")
            guard lastDrawn > firstDrawn, let start = stamped.time(of: firstDrawn), let end = stamped.time(of: lastDrawn) else {
                throw BenchError("the door drew no frames while measuring")
            }
            let window = firstDrawn...lastDrawn
            let seconds = Double(end - start) / 1_000_000 * Double(window.count) / Double(window.count - 1)
            let shownFrames = (try page.evaluate("window.__bench.frames") as? [Any] ?? []).compactMap { ($0 as? [Any])?.compactMap { ($0 as? NSNumber)?.doubleValue } }
                .filter { $0.count == 5 }
            let frames = shownFrames.filter { window.contains(Int($0[0])) }
            if let linkBackAt {
                // Never back: the whole rest of the call.
                recoveries.append((shownFrames.map { $0[3] }.filter { $0 > linkBackAt }.min() ?? Date().timeIntervalSince1970 * 1000) - linkBackAt)
            }
            stats.add(try PageVideoStats.read(page, connectionsFrom: connectionsBefore))
            // Frames the page presented between two it read count too (`FrameTally.shownSequence`).
            let shownSequence = FrameTally.shownSequence(reads: shownFrames.map { (Int($0[0]), Int($0[4])) })
            pageTallies.append(FrameTally(window: window, seconds: seconds, shown: shownSequence))
            ages += frames.map { $0[1] }
            received += frames.map { $0[2] }.filter { $0 >= 0 }
            try rig.hangUp()
            _ = MainContext.run(timeout: 5) { ShownFrames.all(inEventsFile: events).count >= run }
            let shown = ShownFrames.all(inEventsFile: events)
            if shown.count >= run {
                wall += shown[run - 1].ages(in: window)
                wallTallies.append(shown[run - 1].tally(window, seconds: seconds))
            }
            MainContext.spin(1)
        }
        return WebFigures(runs: runs, codec: h264 ? "H.264" : "VP8", ringToFirstFrameMs: LatencyStats(firstFrames), browserGlassToGlassMs: LatencyStats(ages),
                          wallGlassToGlassMs: LatencyStats(wall), browserReceivedMs: LatencyStats(received),
                          pageFrames: FrameTally(pooling: pageTallies), wallFrames: FrameTally(pooling: wallTallies),
                          pageStats: stats, network: network.map { dropOut ? ($0.link == .clean ? "" : "\($0.link), ") + "a 3 s drop-out" : $0.link.description },
                          recoveryMs: dropOut ? LatencyStats(recoveries) : nil)
    }

    static func setPassword(_ path: String) throws {
        let folder = ((try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]) as NSString
        let setter = Process()
        setter.executableURL = URL(fileURLWithPath: folder.deletingLastPathComponent + "/c1nk-gst-answer")
        setter.arguments = ["web-password", "--web-password-file", path]
        let input = Pipe()
        setter.standardInput = input
        setter.standardError = FileHandle.nullDevice
        try setter.run()
        input.fileHandleForWriting.write(Data((Self.password + "\n").utf8))
        try input.fileHandleForWriting.close()
        setter.waitUntilExit()
        guard setter.terminationStatus == 0 else { throw BenchError("c1nk-gst-answer web-password failed") }
    }

    static func lines(_ path: String) -> [[String: Any]] {
        ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    static func count(_ event: String, in path: String) -> Int { lines(path).filter { $0["event"] as? String == event }.count }

    static func realtimeMinusMonotonic() -> Double {
        var real = timespec(), monotonic = timespec()
        clock_gettime(CLOCK_REALTIME, &real)
        clock_gettime(CLOCK_MONOTONIC, &monotonic)
        return Double(real.tv_sec - monotonic.tv_sec) * 1000 + Double(real.tv_nsec - monotonic.tv_nsec) / 1_000_000
    }
}
