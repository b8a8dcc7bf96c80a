import C1nkDoor
import CGStreamer
import C1nkGLib
import C1nkPipeline
import C1nkProbes
import C1nkRTSP
import Foundation
import Synchronization

/// One call of `--rtsp`: the wall's glass-to-glass and a restream client's, side by side.
struct RTSPRun: Codable {
    var clients: Int
    /// From the door's capture to the answerer's sink (the wall's figure, `ScreenStampReader`).
    var wallMs: LatencyStats
    /// From the door's capture to a decoded frame of an `rtspsrc` client (jitterbuffer 0) in this process.
    var rtspMs: LatencyStats
    var rtspUnreadable: Int
    /// The answerer's CPU during the call (% of one core).
    var cpuPercent: Double
    /// Clients that played (frames through their video branch).
    var clientsPlaying: Int
}

struct RTSPFigures: Codable {
    var codec: String
    var width: Int
    var height: Int
    var runs: [RTSPRun]
    /// The goal: RTSP glass-to-glass at p50 at most this many times the wall's.
    var goalRatio = 1.2
}

/// `--rtsp`: calls served at `rtsp://127.0.0.1:N/door` (`--rtsp-anonymous`)
/// with 0, 1 and 20 clients. One client decodes and reads the door's stamps
/// as `ScreenStampReader` does at the wall; the others only receive (as
/// go2rtc or a recorder would), so this process's decoding does not weigh
/// on the answerer's figures.
struct RTSPBenchmark {
    let options: BenchOptions
    var clientCounts = [0, 1, 20]

    func run(progress: (String) -> Void) throws -> RTSPFigures {
        let codec = options.codecs.first ?? .vp8
        let (width, height) = options.resolutions.first ?? (640, 480)
        var runs: [RTSPRun] = []
        for clients in clientCounts {
            progress("rtsp: \(codec.rawValue) \(width)x\(height), \(clients) client(s)…")
            runs.append(try call(codec: codec, width: width, height: height, clients: clients))
        }
        return RTSPFigures(codec: codec.rawValue, width: width, height: height, runs: runs)
    }

    private func call(codec: DoorMediaSession.VideoCodec, width: Int, height: Int, clients: Int) throws -> RTSPRun {
        let directory = NSTemporaryDirectory() + "c1nk-rtsp-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let reader = ScreenStampReader(width: width, height: height, directory: directory)
        let port = 20_000 + Int.random(in: 0..<20_000)
        var callOptions = options
        callOptions.sink = reader.sinkDescription
        callOptions.screens = nil
        var benchmark = CallBenchmark(options: callOptions, bench: BenchCase(codec: codec, width: width, height: height))
        benchmark.screenReader = reader
        benchmark.extraArguments = ["--screens", "off", "--rtsp-port", String(port), "--rtsp-anonymous"]
        let stamps = StampAgeProbe(width: width, height: height)
        var counters: [FrameCounter] = []
        var players: [OwnedPipeline] = []
        var links: [SignalConnection?] = []
        var connectAt: Double?
        benchmark.whileMediaFlows = {
            let now = MainContext.monotonicSeconds()
            if connectAt == nil { connectAt = now + 1 }
            guard let at = connectAt, now >= at, players.count < clients else { return }
            let (player, counter, link) = Self.client(url: "rtsp://127.0.0.1:\(port)/door", decoding: players.isEmpty ? stamps : nil,
                                                width: width, height: height)
            players.append(player)
            counters.append(counter)
            links.append(link)
            connectAt = now + 0.05
        }
        let figures = try benchmark.run()
        for player in players { player.release() }
        links.removeAll()
        let (wall, _) = reader.figures()
        let ages = stamps.figures
        return RTSPRun(clients: clients, wallMs: wall, rtspMs: LatencyStats(Array(ages.ages.dropFirst(60))),
                       rtspUnreadable: ages.unreadable, cpuPercent: figures.cpuPercent,
                       clientsPlaying: counters.filter { $0.value.load(ordering: .relaxed) > 30 }.count)
    }

    /// An `rtspsrc` client over TCP with no jitterbuffer delay: decoding the video for `stamps`, or receiving only.
    static func client(url: String, decoding stamps: StampAgeProbe?, width: Int,
                       height: Int) -> (OwnedPipeline, FrameCounter, SignalConnection?) {
        let video = stamps == nil ? "fakesink name=video sync=false"
            : "decodebin ! videoconvert ! video/x-raw,format=I420,width=\(width),height=\(height) ! fakesink name=reader sync=false"
        let description = "rtspsrc name=s location=\(url) latency=0 protocols=tcp"
            + " identity name=count ! \(video)  fakesink name=audio sync=false"
        let player = try! OwnedPipeline(launching: description, name: "rtsp-client")
        let links = player.pipeline.element(named: "s").map {
            RestreamClientLinks.connect($0, video: player.pipeline.element(named: "count")?.staticPad("sink"),
                                        audio: player.pipeline.element(named: "audio")?.staticPad("sink"))
        }
        if let stamps, let pad = player.pipeline.element(named: "reader")?.staticPad("sink") { stamps.attach(to: pad) }
        let counter = FrameCounter()
        if let pad = player.pipeline.element(named: "count")?.staticPad("sink") {
            _ = pad.addProbe(GST_PAD_PROBE_TYPE_BUFFER) { _ in
                counter.value.add(1, ordering: .relaxed)
                return GST_PAD_PROBE_OK
            }
        }
        player.start()
        return (player, counter, links)
    }
}

extension RTSPFigures {
    func tableLines() -> [String] {
        func f(_ value: Double) -> String { String(format: "%.1f", value) }
        var lines = ["", "rtsp: glass-to-glass at the wall's sink and at an rtspsrc client (TCP, latency=0, decoded in the bench),"
                     + " \(codec) \(width)x\(height); the answerer's CPU with N clients",
                     "  clients  wall p50/p95 ms   rtsp p50/p95 ms   rtsp ÷ wall p50   CPU %   clients playing"]
        for run in runs {
            let ratio = run.clients > 0 && run.wallMs.p50 > 0 ? String(format: "%.2f×", run.rtspMs.p50 / run.wallMs.p50) : "—"
            lines.append("  " + String(run.clients).padding(toLength: 8, withPad: " ", startingAt: 0)
                         + " " + (f(run.wallMs.p50) + " / " + f(run.wallMs.p95)).padding(toLength: 17, withPad: " ", startingAt: 0)
                         + " " + (run.clients > 0 ? f(run.rtspMs.p50) + " / " + f(run.rtspMs.p95) : "—").padding(toLength: 17, withPad: " ", startingAt: 0)
                         + " " + ratio.padding(toLength: 17, withPad: " ", startingAt: 0)
                         + " " + f(run.cpuPercent).padding(toLength: 7, withPad: " ", startingAt: 0) + " " + String(run.clientsPlaying))
        }
        if let one = runs.first(where: { $0.clients == 1 }), one.wallMs.p50 > 0 {
            let ratio = one.rtspMs.p50 / one.wallMs.p50
            lines.append(String(format: "  goal: rtsp ≤ %.1f× the wall's at p50: %.2f× — %@", goalRatio, ratio, ratio <= goalRatio ? "met" : "NOT met"))
        }
        if let one = runs.first(where: { $0.clients == 1 }), let many = runs.max(by: { $0.clients < $1.clients }), many.clients > 1 {
            lines.append(String(format: "  %d clients: %+.1f %% of a core against 1 (%.2f %% per added client)",
                                many.clients, many.cpuPercent - one.cpuPercent,
                                (many.cpuPercent - one.cpuPercent) / Double(many.clients - 1)))
        }
        return lines
    }
}
