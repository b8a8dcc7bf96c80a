import C1nkCall
import C1nkDoor
import C1nkGLib
import C1nkLocal
import C1nkMedia
import C1nkProbes
import C1nkProtocol
import Foundation
import Glibc

/// The figures of one benchmarked call.
struct CallFigures: Codable {
    var codec: String
    var width: Int
    var height: Int
    var decodeMs: LatencyStats
    var glassToGlassMs: LatencyStats
    var glassToGlassSteadyMs: LatencyStats
    var ringToFirstFrameMs: Double?
    var ringToMediaConnectedMs: Double?
    var acceptToAudioMs: Double?
    var cpuPercent: Double
    /// Of which the wall display's threads (with --screens).
    var displayCPUPercent: Double?
    var peakRSSMB: Double
    var framesDecoded: Int
    var framesExpected: Int
    var unreadableStamps: Int
    var framesDroppedLate: Int?
    var baseline: BaselineFigures?
    /// Frames shown intact of those the door sent, the longest freeze and
    /// the keyframe requests sent (FrameStamp sequence numbers).
    var framesIntact: Int?
    var framesSent: Int?
    var longestFreezeMs: Double?
    var keyframeRequests: Int?
    /// offerToAnswer, answerToConnected, connectedToFirstFrame (ms).
    var setupMs: [String: Double]?
    var latency: UInt?
    var network: String?
    /// The narrow-uplink section: which door, the uplink, and how the door followed it.
    var door: String?
    var uplinkKbps: Int?
    var longestFreezeAfterStartMs: Double?
    /// The door encoder's target, once a second from the first frame (kbit/s).
    var encoderKbps: [Int]?
    /// The browser's bandwidth estimate, once a second (kbit/s).
    var estimateKbps: [Int]?
    /// Time the door's packets waited in the router's queue, and how many it dropped.
    var queueDelayMs: LatencyStats?
    var uplinkDropped: Int?
    /// Frames the browser drew but its encoder chose not to send (it lowers
    /// its frame rate to fit its target): not counted as sent.
    var framesSkippedByDoor: Int?
    /// Intact against the frames the door drew (`FrameWindow`), and each of those frames' age (ms).
    var drawnFrames: FrameTally?
    var drawnFrameAgesMs: [Double]?
}

/// Runs one real call: a local server and a stamping door in this process,
/// `c1nk-gst-answer --measure` as its own process, so its CPU and memory are
/// its own.
struct CallBenchmark {
    let options: BenchOptions
    let bench: BenchCase
    var network = NetworkImpairment()
    var latency: UInt?
    /// The door follows the answerer's congestion feedback (the narrow-uplink section).
    var adapts = false
    /// A headless-Chromium door instead of the simulated one, its uplink in the server's relay.
    var browser = false
    /// Reads the stamps at the answerer's screen (`--wall-latency`).
    var screenReader: ScreenStampReader?
    /// Called while polling, once the call's first frame is reported (`--rtsp` starts its clients).
    var whileMediaFlows: (() -> Void)?
    /// More options for the answerer (`--screens off`).
    var extraArguments: [String] = []
    /// The answerer's device id folder, kept from one call (one process) to
    /// the next as a restarted service keeps it (the set-up section); nil: a
    /// fresh one per call.
    var stateFolder: String?
    var codec: DoorMediaSession.VideoCodec { bench.codec }

    func run() throws -> CallFigures {
        let server = try SignalServer()
        let door = try BenchDoor(browser: browser, server: server, media: {
            var media = bench.doorMedia(jitter: options.jitter)
            media.network = network
            media.adaptsToFeedback = adapts
            return media
        }())
        defer { door.stop(); server.stop() }

        let directory = NSTemporaryDirectory() + "c1nk-bench-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let eventsPath = directory + "/events.jsonl"
        let answerer = try AnswererProcess.spawn([
            "--server", server.url, "--answer", "auto", "--hangup-after", String(options.duration),
            "--exit-after-calls", "1", "--stun", "none", "--ice-local-ip", "127.0.0.1", "--ringtone", "none",
            "--sink", options.sink, "--audio-sink", "fakesink sync=true",
            "--audio-source", "audiotestsrc is-live=true wave=sine freq=660 volume=0.3",
            "--latency", String(latency ?? options.latency), "--measure", "--events", eventsPath,
            "--device-id-file", (stateFolder ?? directory) + "/device-id",
        ] + (options.pipeline.map { ["--pipeline", $0] } ?? [])
          + (options.record ? ["--record", directory + "/call.mkv"] : []) + options.screenArguments + extraArguments)
        let monitor = ProcessMonitor(pid: answerer.processIdentifier)
        guard MainContext.run(timeout: 10, until: { door.isReady && server.connectedAppIds.count == 1 }) else {
            answerer.terminate()
            throw BenchError("the answerer did not connect to the local server")
        }
        MainContext.spin(1) // let start-up settle before the ring
        try door.ring()
        var mediaStart: Double?
        let finished = MainContext.run(timeout: options.duration + 20) {
            if mediaStart == nil, Events(path: eventsPath).time(.firstFrame) != nil { mediaStart = MainContext.monotonicSeconds() }
            door.sample()
            if mediaStart != nil { screenReader?.connectIfReady(); whileMediaFlows?() }
            return !answerer.isRunning
        }
        monitor.stop()
        screenReader?.stop()
        guard finished else {
            answerer.terminate()
            throw BenchError("the call did not end")
        }
        let events = Events(path: eventsPath)
        guard let measurements = events.measurements else {
            throw BenchError("the answerer reported no measurements (events: \(events.names.joined(separator: ", ")))")
        }
        let ringAt = events.time(.ringing)
        let endAt = events.time(.ended)
        let firstFrameAt = events.time(.firstFrame)
        let mediaSeconds = (endAt ?? 0) - (firstFrameAt ?? 0)
        var acceptToAudio: Double?
        if let accepted = door.simulated?.acceptedAt, let heard = door.simulated?.heardLevels.first(where: { $0.time >= accepted && $0.level > -40 }) {
            acceptToAudio = (heard.time - accepted) * 1000
        }
        func stats(_ key: String) -> LatencyStats {
            guard let fields = measurements[key]?.objectValue else { return LatencyStats([]) }
            var stats = LatencyStats([])
            stats.count = fields["count"]?.intValue ?? 0
            stats.p50 = fields["p50"]?.doubleValue ?? 0
            stats.p95 = fields["p95"]?.doubleValue ?? 0
            stats.p99 = fields["p99"]?.doubleValue ?? 0
            stats.max = fields["max"]?.doubleValue ?? 0
            return stats
        }
        var figures = CallFigures(
            codec: codec.rawValue, width: bench.width, height: bench.height,
            decodeMs: stats("decodeMs"), glassToGlassMs: stats("glassToGlassMs"),
            glassToGlassSteadyMs: stats("glassToGlassSteadyMs"),
            ringToFirstFrameMs: pair(ringAt, firstFrameAt).map { ($1 - $0) * 1000 },
            ringToMediaConnectedMs: pair(ringAt, events.time(.mediaConnected)).map { ($1 - $0) * 1000 },
            acceptToAudioMs: acceptToAudio,
            cpuPercent: monitor.cpuPercent(since: mediaStart ?? 0),
            displayCPUPercent: options.screens == nil ? nil : monitor.displayCPUPercent(since: mediaStart ?? 0),
            peakRSSMB: Double(monitor.peakRSSBytes) / 1_048_576,
            framesDecoded: measurements["framesDecoded"]?.intValue ?? 0,
            framesExpected: Int(mediaSeconds * 30),
            unreadableStamps: measurements["unreadableStamps"]?.intValue ?? 0,
            framesDroppedLate: measurements["framesDroppedLate"]?.intValue,
            baseline: nil,
            framesIntact: measurements["framesIntact"]?.intValue,
            framesSent: measurements["framesSent"]?.intValue,
            longestFreezeMs: measurements["longestFreezeMs"]?.doubleValue,
            keyframeRequests: measurements["keyframeRequests"]?.intValue,
            setupMs: measurements["setupMs"]?.objectValue?.compactMapValues(\.doubleValue),
            latency: latency ?? options.latency)
        if network.uplinkKbps > 0 || browser {
            figures.door = browser ? "browser" : "simulated"
            figures.uplinkKbps = network.uplinkKbps
            figures.longestFreezeAfterStartMs = measurements["longestFreezeAfterStartMs"]?.doubleValue
            figures.encoderKbps = door.encoderKbpsEachSecond(from: mediaStart)
            figures.estimateKbps = door.estimateKbpsEachSecond(from: mediaStart)
            figures.framesSkippedByDoor = door.framesSkippedByEncoder
            figures.countDrawnFrames(door: door, shown: ShownFrames(measurements))
            if let uplink = door.uplink {
                figures.queueDelayMs = LatencyStats(uplink.queueDelays.map { $0 * 1000 })
                figures.uplinkDropped = uplink.dropped
            }
        }
        return figures
    }

    private func pair(_ a: Double?, _ b: Double?) -> (Double, Double)? {
        guard let a, let b else { return nil }
        return (a, b)
    }
}

/// The answerer's events file, read back as typed events.
struct Events {
    let records: [TimedCallEvent]

    init(path: String) {
        records = TimedCallEvent.read((try? String(contentsOfFile: path, encoding: .utf8)) ?? "")
    }

    var names: [String] { records.map(\.event.name) }
    /// The time (unix seconds) of the first event of this kind.
    func time(_ kind: CallEvent.Kind) -> Double? {
        records.first { $0.event.kind == kind }.map { Double($0.t) / 1000 }
    }
    /// The figures of the first `measurements` event.
    var measurements: [String: JSONValue]? {
        for record in records { if case .measurements(_, let figures) = record.event { return figures } }
        return nil
    }
    /// Frames rendered, from the first `ended` event.
    var framesRendered: Int? {
        for record in records { if case .ended(_, _, _, _, let frames) = record.event { return frames } }
        return nil
    }
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

enum AnswererProcess {
    /// Starts the `c1nk-gst-answer` built beside this benchmark, or the one
    /// `$C1NK_ANSWER_BINARY` names (another build, e.g. the Debian package's).
    static func spawn(_ arguments: [String]) throws -> Process {
        let folder = ((try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]) as NSString
        let binary = ProcessInfo.processInfo.environment["C1NK_ANSWER_BINARY"] ?? folder.deletingLastPathComponent + "/c1nk-gst-answer"
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            throw BenchError("\(binary) is missing: build it first (swift build -c release)")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = arguments
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        return process
    }
}
