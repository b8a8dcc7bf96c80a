import C1nkCommandLine
import C1nkGLib
import Foundation
import Glibc

let options: BenchOptions
do {
    options = try BenchOptions.parse(Array(CommandLine.arguments.dropFirst()))
} catch {
    writeToStandardError("c1nk-gst-bench: \(error)\nRun c1nk-gst-bench --help to see the options.\n")
    exit(2)
}
if options.help {
    print(BenchOptions.usage)
    exit(0)
}
if let receiver = options.baselineReceiver {
    exit(BaselineReceiver.run(receiver))
}

GStreamer.initialize()
Log.echoToStandardError = false
func progress(_ text: String) { if !options.json { writeToStandardError(text + "\n") } }

var report = BenchReport(machine: BenchReport.machineDescription(), duration: options.duration, latency: options.latency,
                         sink: options.sink + (options.screens.map { ", wall display \($0)" } ?? ""), jitter: options.jitter, calls: [], idle: nil, scale: nil)
/// Prints the report and ends: a section run on its own (`--uplink`, `--scale`, …).
@MainActor func printReport() -> Never {
    print(options.json ? report.json() : report.table())
    exit(0)
}
/// The options with `seconds` per call unless `--duration` was given.
@MainActor func withDefaultDuration(_ seconds: Double) -> BenchOptions {
    var adjusted = options
    if !CommandLine.arguments.contains("--duration") { adjusted.duration = seconds }
    return adjusted
}
do {
    if options.uplink {
        report.uplink = try UplinkBenchmark(options: withDefaultDuration(15)).run(progress: progress)
        printReport()
    }
    if options.scaleOnly {
        progress("calls at once, up to \(options.scaleMax)…")
        report.scale = try ScaleBenchmark(maxCalls: options.scaleMax, duration: options.duration,
                                          pipelines: options.scalePipelines, repeats: options.repeats).run(progress: progress)
        printReport()
    }
    if options.network {
        report.network = try NetworkBenchmark(options: withDefaultDuration(6)).run(progress: progress)
        printReport()
    }
    if options.web {
        let figures = try WebBenchmark(options: withDefaultDuration(6)).run(progress: progress)
        print(options.json ? figures.json : figures.table)
        exit(0)
    }
    if options.sip {
        let figures = try SIPBenchmark(options: withDefaultDuration(6)).run(progress: progress)
        print(options.json ? figures.json : figures.table)
        exit(0)
    }
    if options.webTalk {
        let figures = try WebTalkBenchmark(options: withDefaultDuration(6)).run(progress: progress)
        print(options.json ? figures.json : figures.table)
        exit(0)
    }
    if options.webPhone {
        let figures = try WebPhoneBenchmark(options: withDefaultDuration(6)).run(progress: progress)
        print(options.json ? figures.json : figures.table)
        exit(0)
    }
    if options.mainLoop {
        let figures = try MainLoopBenchmark(options: options).run(progress: progress)
        print(options.json ? figures.json : figures.table)
        exit(0)
    }
    if options.footprint {
        let figures = try FootprintBenchmark(calls: max(100, options.repeats), idleOnly: options.idleOnly).run(progress: progress)
        print(options.json ? figures.json : figures.table)
        exit(0)
    }
    if options.home {
        report.home = try HomeBenchmark(rings: max(5, options.repeats)).run(progress: progress)
        printReport()
    }
    if options.rtsp {
        report.rtsp = try RTSPBenchmark(options: options).run(progress: progress)
        printReport()
    }
    if options.wallLatency {
        let sizes = options.resolutionGiven ? options.resolutions : [(640, 480), (1280, 720)]
        report.wallLatency = try WallLatencyBenchmark(options: options, sizes: sizes).run(progress: progress)
        printReport()
    }
    for codec in options.codecs where !options.idleOnly {
        for (width, height) in options.resolutions {
            progress("call: \(codec.rawValue) \(width)x\(height)…")
            let bench = BenchCase(codec: codec, width: width, height: height)
            var figures = try CallBenchmark(options: options, bench: bench).run()
            progress("baseline: \(codec.rawValue) \(width)x\(height)…")
            figures.baseline = try BaselineBenchmark(options: options, bench: bench).run()
            report.calls.append(figures)
        }
    }
    if options.idleSeconds > 0 {
        progress("idle answerer for \(Int(options.idleSeconds)) s, then again with --web-port and --mqtt…")
        report.idle = try IdleBenchmark(seconds: options.idleSeconds, arguments: options.screenArguments).run()
        report.idleWithWebAndMQTT = try IdleBenchmark(seconds: options.idleSeconds, arguments: options.screenArguments, webAndMQTT: true).run()
        if options.idleOnly { printReport() }
    }
    if options.scaleMax > 0 {
        progress("calls at once, up to \(options.scaleMax)…")
        report.scale = try ScaleBenchmark(maxCalls: options.scaleMax, duration: options.duration,
                                          pipelines: options.scalePipelines, repeats: options.repeats).run(progress: progress)
    }
    if options.audioSeconds > 0 {
        progress("audio: mouth-to-ear, A/V, DSP cost, echo loop…")
        report.audio = try AudioBenchmark(seconds: options.audioSeconds, echoRuns: options.echoRuns).run()
    }
} catch {
    writeToStandardError("c1nk-gst-bench: \(error)\n")
    exit(1)
}
print(options.json ? report.json() : report.table())
