import C1nkDoor
import C1nkGLib
import C1nkMedia
import C1nkPipeline
import C1nkProbes
import Foundation

/// The same encoded stream decoded by a plain GStreamer pipeline — no
/// webrtcbin, no signaling, no Swift but the measurement probes — in a
/// process of its own: `udpsrc ! depay ! decoder ! fakesink sync=false`.
/// It renders each frame as soon as it is decoded, so its glass-to-glass is
/// the floor for this stream on this machine.
struct BaselineFigures: Codable {
    var decodeMs: LatencyStats
    var glassToGlassMs: LatencyStats
    var cpuPercent: Double
    var framesDecoded: Int
}

struct BaselineBenchmark {
    let options: BenchOptions
    let bench: BenchCase
    var codec: DoorMediaSession.VideoCodec { bench.codec }

    func run() throws -> BaselineFigures {
        let port = Int.random(in: 20000...40000)
        let decode: String
        let caps: String
        switch codec {
        case .h264:
            decode = "rtph264depay ! h264parse ! avdec_h264 name=video-decoder"
            caps = "application/x-rtp,media=video,encoding-name=H264,clock-rate=90000,payload=102"
        case .vp9:
            decode = "rtpvp9depay ! vp9dec name=video-decoder"
            caps = "application/x-rtp,media=video,encoding-name=VP9,clock-rate=90000,payload=98"
        case .vp8:
            decode = "rtpvp8depay ! vp8dec name=video-decoder"
            caps = "application/x-rtp,media=video,encoding-name=VP8,clock-rate=90000,payload=96"
        }
        let output = NSTemporaryDirectory() + "c1nk-baseline-\(port).json"
        defer { try? FileManager.default.removeItem(atPath: output) }
        let folder = ((try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0])
        let receiver = Process()
        receiver.executableURL = URL(fileURLWithPath: folder)
        receiver.arguments = ["--baseline-receiver", "--port", String(port), "--rtp-caps", caps, "--decode", decode,
                              "--seconds", String(options.duration)]
        _ = FileManager.default.createFile(atPath: output, contents: nil)
        receiver.standardOutput = FileHandle(forWritingAtPath: output)
        receiver.standardInput = FileHandle.nullDevice
        try receiver.run()
        let monitor = ProcessMonitor(pid: receiver.processIdentifier)
        MainContext.spin(0.5) // the receiver binds its port

        let sender = try Self.sender(camera: DoorMediaSession.camera(bench.doorMedia()), port: port)
        sender.start()
        let started = MainContext.monotonicSeconds()
        MainContext.run(timeout: options.duration + 10) { !receiver.isRunning }
        monitor.stop()
        sender.release()
        if receiver.isRunning { receiver.terminate() }

        let data = (try? Data(contentsOf: URL(fileURLWithPath: output))) ?? Data()
        guard let summary = try? JSONDecoder().decode(BaselineFigures.self, from: data) else {
            throw BenchError("the baseline receiver reported nothing")
        }
        var figures = summary
        figures.cpuPercent = monitor.cpuPercent(since: started)
        return figures
    }

    /// The door's camera sending RTP to `port` on this machine, as fast as it encodes.
    static func sender(camera: Element, port: Int) throws -> OwnedPipeline {
        guard let sink = Element.make("udpsink") else { throw BenchError("udpsink is not installed") }
        for (name, value) in [("host", "127.0.0.1"), ("port", String(port)), ("sync", "false"), ("async", "false")] {
            sink.set(name, fromString: value)
        }
        let sender = OwnedPipeline(named: "baseline-sender")
        sender.pipeline.add(camera)
        sender.pipeline.add(sink)
        camera.link(sink)
        return sender
    }
}

/// `--baseline-receiver`: the plain decoding pipeline, measured with the same
/// probes as the answerer; prints its figures as JSON.
enum BaselineReceiver {
    static func run(_ options: BaselineReceiverOptions) -> Int32 {
        GStreamer.initialize()
        let description = "udpsrc port=\(options.port) caps=\"\(options.rtpCaps)\" ! \(options.decode)"
            + " ! videoconvert ! identity name=video-out ! fakesink sync=false"
        guard let pipeline = try? OwnedPipeline(launching: description, name: "baseline-receiver") else {
            FileHandle.standardError.write(Data("c1nk-gst-bench: baseline: \(description)\n".utf8))
            return 1
        }
        let probes = MeasurementProbes()
        probes.attach(to: pipeline.pipeline)
        pipeline.start()
        MainContext.spin(options.seconds)
        pipeline.release()
        let summary = probes.summary()
        let figures = BaselineFigures(decodeMs: summary.decode, glassToGlassMs: summary.glassToGlass,
                                      cpuPercent: 0, framesDecoded: summary.framesDecoded)
        let data = try! JSONEncoder().encode(figures)
        FileHandle.standardOutput.write(data)
        return 0
    }
}
