import C1nkCommandLine
import C1nkDoor
import C1nkGLib
import C1nkMedia

/// The options of `c1nk-gst-bench`.
struct BenchOptions {
    var duration: Double = 10
    var codecs: [DoorMediaSession.VideoCodec] = [.vp8, .h264]
    var resolutions: [(Int, Int)] = [(640, 480), (1280, 720), (1920, 1080)]
    var latency: UInt = MediaConfiguration().latencyMilliseconds
    /// Like a video sink: late frames (over 20 ms) are dropped and counted.
    /// No `sync=`: the answerer's default applies (render immediately).
    var sink = "fakesink qos=true max-lateness=20000000"
    var jitter = 0
    /// `--pipeline` for the answerer (a name or a file).
    var pipeline: String?
    var record = false
    /// `--screens WxH`: the answerer draws the wall display at this size.
    var screens: String?
    var idleSeconds: Double = 60
    /// `--idle-only`: only the idle rows (with the web page and MQTT off and on).
    var idleOnly = false
    /// `--footprint`: only the memory rows (connected, after calls, after a compressed day).
    var footprint = false
    var scaleMax = 4
    /// `--scale`: only the scale section; `--scale-pipeline`: which answerers.
    var scaleOnly = false
    var scalePipelines = ScalePipeline.allCases
    /// Seconds of each audio measurement call; 0 skips the audio section.
    var audioSeconds: Double = 8
    /// Echo-loop calls with processing on, against one without: median and range.
    var echoRuns = 5
    var json = false
    var help = false
    /// `--network`: only the network section and the set-up breakdown.
    var network = false
    /// `--wall-latency`: only glass-to-glass at the screen, with and without the wall display.
    var wallLatency = false
    /// `--web`: only the web page (ring → first frame in the browser, glass-to-glass there and at the wall).
    var web = false
    /// `--web-phone`: the web page with the browser as a phone on an impaired network of its own.
    var webPhone = false
    /// `--web-talk`: mouth-to-ear between the page and the door, both ways.
    var webTalk = false
    /// `--sip`: only the SIP bridge (ring → INVITE, mouth-to-ear both ways, # → open, CPU).
    var sip = false
    /// `--main-loop`: only how late the answerer's main context runs under the web, MQTT and viewer load.
    var mainLoop = false
    /// `--rtsp`: only the RTSP restream's glass-to-glass against the wall's, and its CPU with 0, 1 and 20 clients.
    var rtsp = false
    /// `--home`: only what the home sees of a ring (MQTT and the snapshot).
    var home = false
    /// Whether `--resolution` named one (else `--wall-latency` runs 640x480 and 1280x720).
    var resolutionGiven = false
    var networkLatencies: [UInt] = [MediaConfiguration().latencyMilliseconds, 100]
    var setupRounds = 5
    /// `--repeat N`: runs of each network row (median and range reported).
    var repeats = 1
    /// `--uplink`: only the narrow-uplink section.
    var uplink = false
    var uplinkQueueMilliseconds = 200
    /// `--uplink-kbps N`, repeatable: the rows' rates.
    var uplinkRates = UplinkBenchmark.rates
    /// Also the headless-Chromium door's rows (`--uplink-browser`).
    var uplinkBrowser = false
    /// Internal: run as the baseline's receiving process.
    var baselineReceiver: BaselineReceiverOptions?

    static let usage = """
    Usage: c1nk-gst-bench [OPTIONS]

    Runs real calls on loopback between the simulated door and c1nk-gst-answer
    and prints, per codec and resolution at 30 fps: decode latency, glass-to-glass
    latency, call set-up times, the answerer's CPU and memory — each beside a
    plain GStreamer pipeline decoding the same stream (no webrtcbin, no Swift).
    Then the idle cost of a connected answerer, and how many record-only and decoded calls
    this machine takes at once.

      --duration S          seconds of media per call (default 10)
      --codec C             vp8, h264 or all (default all)
      --resolution WxH      640x480, 1280x720, 1920x1080 or all (default all)
      --latency MS          the answerer's jitterbuffer latency (default: the answerer's, 20)
      --sink DESC           the answerer's video sink (default "fakesink qos=true max-lateness=20000000",
                            which counts late frames as a video sink does; add sync=true for
                            timestamp-paced display)
      --record              record each call (display-record pipeline, a file in a temporary folder)
      --screens WxH         the answerer draws the wall display at this size around every call and
                            while idle (compare with a run without it for the UI's cost)
      --jitter MS           the door delays each frame by a random 0…MS ms (a jittery link)
      --pipeline NAME|FILE  the answerer's pipeline (default display)
      --idle S              seconds to watch an idle answerer (the signaling ping is every 25 s); 0 skips
                            (default 60); once plain, once with --web-port and --mqtt (a local mosquitto)
      --idle-only           only the idle rows
      --scale-max N         up to N calls at once (steps 1, 2, 4, 8, 16, 32, 50, 60, N; a section
                            stops at the first step where a call keeps < 95 % of its frames),
                            pre-encoded doors; 0 skips (default 4)
      --scale               only the scale section (--scale-max 60 unless given; --repeat N: the
                            median of N runs of each step)
      --scale-pipeline P    record (record-only), decoded (display pipeline to fakesink) or all
                            (default all)
      --network             only the network section (random loss 0/1/3/5/10 %, 5 % in bursts,
                            a 500 ms outage; VP8 and H.264 at 640x480; intact frames, longest
                            freeze, glass-to-glass, keyframe requests) and the set-up breakdown
                            (ring→first frame and its steps, median of 5 calls per codec):
                            every figure of docs/benchmarks.md's network and set-up sections
      --network-latency MS  jitterbuffer latencies for the network section, repeatable
                            (default 20 and 100: the default and the lossy-link advice)
      --repeat N            with --network or --wall-latency: run every row N times, in N interleaved rounds, and
                            report the median and the range (default 1); the set-up breakdown
                            then takes max(5, N) calls per codec
      --wall-latency        only glass-to-glass at the screen (the answerer's --sink is a shmsink this
                            process reads the door's stamps from), each size with the wall display at
                            the door's size and with --screens off, and the process's and the display's
                            CPU; VP8 at 640x480 and 1280x720 unless --codec/--resolution say; --repeat N
                            calls each (median and range). Goal: the screens add ≤ 5 ms at p50 and
                            ≤ 3 % of a core
      --web                 only the web page: headless Chromium logged in to c1nk-gst-answer --web-port, max(3, N)
                            calls of --duration (default 6 s): ring → first frame presented in the page, and
                            glass-to-glass at the page beside the same call's at video-out (the wall).
                            Goals: ≤ 300 ms, and ≤ 1.5× the wall
      --web-phone           the same with the browser as a phone in a network namespace of its own (root),
                            one row each: clean, 3 % and 10 % loss, bursts of 5, a 3 s drop-out, a 2 Mbit/s
                            cap, jitter 30 ± 20 ms; adds Chromium's freezes, jitter buffer and NACKs, and
                            how soon the picture is back after the drop-out
      --sip                 only the SIP bridge: max(3, N) calls of --duration (default 6 s) from the door to
                            a phone on loopback (c1nk-gst-answer --sip-ring): ring → INVITE, mouth-to-ear
                            door → phone and phone → door (ticks and bursts), # → open-door, CPU while
                            bridged. Goals: ≤ 50 ms, ≤ 150 ms each way, ≤ 200 ms
      --web-talk            only talk through the page: mouth-to-ear page → door and door → page with tone
                            bursts (Chromium's fake microphone playing a file, the door's ticks), max(3, N)
                            calls of --duration (default 6 s). Goal: ≤ 150 ms each way
      --main-loop           only the answerer's main loop under load: during a call, wrong-password logins at
                            50/s from 10 loopback addresses, an MQTT broker name that does not resolve,
                            10 web viewers hung up and a 1 GB recording downloaded at once; how late a 10 ms
                            timer runs (--measure's main-loop event). Goal: p99 ≤ 10 ms, max ≤ 50 ms
      --rtsp                only the RTSP restream: glass-to-glass at an rtspsrc client against the
                            wall's sink, and the answerer's CPU with 0, 1 and 20 clients (VP8 640x480
                            unless --codec/--resolution say). Goal: RTSP ≤ 1.2× the wall's at p50
      --footprint           only the answerer's memory with --web-port and --mqtt on: RSS, PSS and
                            private when connected, after max(100, N) calls and after a day's traffic
                            compressed (MQTT commands and page polls once a minute, wrong logins, a lost
                            signaling connection an hour); C1NK_ANSWER_BINARY=PATH measures another build,
                            C1NK_FOOTPRINT_SMAPS=DIR keeps each step's smaps, --idle-only only the first
                            row. Goal: idle RSS ≤ 40 MB, PSS ≤ 25 MB
      --home                only the home: max(5, N) rings to c1nk-gst-answer --mqtt --snapshot with a
                            local mosquitto: the door's ring → the ring event at an MQTT subscriber,
                            and the first frame → the snapshot on disk. Goals: ≤ 50 ms and ≤ 150 ms
      --setup N             only the set-up breakdown of --network, N loss-free calls per codec
                            (each a new answerer process that finds the codec of the call before
                            beside its device id), after one whose process found none
      --uplink              only the narrow-uplink section: the door behind a router's uplink at
                            2000, 1000, 600 and 300 kbit/s (drop-tail queue), following the
                            answerer's congestion feedback; intact frames, freezes, glass-to-glass,
                            queue delay, the encoder's rate each second (640x480, --codec, --repeat)
      --uplink-queue-ms M   the router's queue for --uplink (default 200)
      --uplink-kbps N       with --uplink: only this rate, repeatable (default 2000 1000 600 300)
      --uplink-browser      with --uplink: also headless Chromium as the door (chromium installed)
      --audio S             audio section: mouth-to-ear both ways, A/V offset, DSP cost and
                            echo cancellation, S seconds per call; 0 skips (default 8)
      --echo-runs N         echo-loop calls with processing on, each against one call without
                            (ERLE and double talk: median and range; default 5)
      --json                print JSON instead of tables
      --help                show this help

    With --network, --duration (default 6 there) is per network call.

    Build with -c release for representative numbers:
      swift build -c release && .build/release/c1nk-gst-bench
    """

    static func parse(_ arguments: [String]) throws -> BenchOptions {
        var options = BenchOptions()
        var reader = ArgumentReader(arguments)
        var receiver = BaselineReceiverOptions()
        var isReceiver = false
        var latenciesGiven = false
        var uplinkRatesGiven = false
        while let option = try reader.nextOption() {
            switch option {
            case "--help", "-h": options.help = true
            case "--duration": options.duration = try reader.number(for: option, minimum: 1)
            case "--codec":
                let value = try reader.choice(for: option, ["vp8", "h264", "all"])
                options.codecs = value == "all" ? [.vp8, .h264] : [DoorMediaSession.VideoCodec(rawValue: value)!]
            case "--resolution":
                let value = try reader.value(for: option)
                if value == "all" { continue }
                let parts = value.split(separator: "x").compactMap { Int($0) }
                guard parts.count == 2, parts[0] >= 320, parts[1] >= 240 else {
                    throw ArgumentReader.UsageError("--resolution takes WIDTHxHEIGHT (at least 320x240) or all, not '\(value)'")
                }
                options.resolutions = [(parts[0], parts[1])]
                options.resolutionGiven = true
            case "--latency": options.latency = UInt(try reader.integer(for: option))
            case "--sink": options.sink = try reader.value(for: option)
            case "--jitter": options.jitter = try reader.integer(for: option)
            case "--pipeline": options.pipeline = try reader.value(for: option)
            case "--record": options.record = true
            case "--screens":
                let value = try reader.value(for: option)
                let parts = value.split(separator: "x").compactMap { Int($0) }
                guard parts.count == 2 else { throw ArgumentReader.UsageError("--screens takes WIDTHxHEIGHT such as 1280x800, not '\(value)'") }
                options.screens = value
            case "--idle": options.idleSeconds = try reader.number(for: option)
            case "--idle-only": options.idleOnly = true
            case "--scale-max": options.scaleMax = try reader.integer(for: option)
            case "--scale":
                options.scaleOnly = true
                if !arguments.contains("--scale-max") { options.scaleMax = 60 }
            case "--scale-pipeline":
                let value = try reader.choice(for: option, ["record", "decoded", "all"])
                options.scalePipelines = value == "all" ? ScalePipeline.allCases : [ScalePipeline(rawValue: value)!]
            case "--audio": options.audioSeconds = try reader.number(for: option)
            case "--echo-runs": options.echoRuns = max(1, try reader.integer(for: option))
            case "--json": options.json = true
            case "--uplink": options.uplink = true
            case "--uplink-queue-ms": options.uplinkQueueMilliseconds = try reader.integer(for: option, minimum: 1)
            case "--uplink-kbps":
                if !uplinkRatesGiven { options.uplinkRates = [] }
                uplinkRatesGiven = true
                options.uplink = true
                options.uplinkRates.append(try reader.integer(for: option, minimum: 50))
            case "--uplink-browser":
                options.uplink = true
                options.uplinkBrowser = true
            case "--web": options.web = true
            case "--web-phone": options.webPhone = true
            case "--web-talk": options.webTalk = true
            case "--sip": options.sip = true
            case "--main-loop": options.mainLoop = true
            case "--home": options.home = true
            case "--footprint": options.footprint = true
            case "--network": options.network = true
            case "--wall-latency": options.wallLatency = true
            case "--rtsp": options.rtsp = true
            case "--setup":
                options.network = true
                options.networkLatencies = []
                latenciesGiven = true
                options.setupRounds = try reader.integer(for: option, minimum: 1)
            case "--repeat": options.repeats = try reader.integer(for: option, minimum: 1)
            case "--network-latency":
                if !latenciesGiven { options.networkLatencies = [] }
                latenciesGiven = true
                options.networkLatencies.append(UInt(try reader.integer(for: option)))
            // The baseline receiver, started by the benchmark itself.
            case "--baseline-receiver": isReceiver = true
            case "--port": receiver.port = try reader.integer(for: option, minimum: 1)
            case "--rtp-caps": receiver.rtpCaps = try reader.value(for: option)
            case "--decode": receiver.decode = try reader.value(for: option)
            case "--seconds": receiver.seconds = try reader.number(for: option)
            default: throw ArgumentReader.UsageError("unknown option \(option)")
            }
        }
        if isReceiver { options.baselineReceiver = receiver }
        return options
    }
}

struct BaselineReceiverOptions {
    var port = 0
    var rtpCaps = ""
    var decode = ""
    var seconds: Double = 10
}

/// One row of the table: a codec at a resolution, 30 fps.
struct BenchCase {
    let codec: DoorMediaSession.VideoCodec
    let width: Int
    let height: Int

    /// The door's camera for this case, stamping its capture time into each frame.
    func doorMedia(jitter: Int = 0) -> DoorMediaSession.Options {
        var media = DoorMediaSession.Options()
        media.codec = codec
        media.width = width
        media.height = height
        media.stampTime = true
        media.jitterMilliseconds = jitter
        media.ice = .loopback
        return media
    }
}

extension BenchOptions {
    /// The answerer's options for the wall display, when benchmarked.
    var screenArguments: [String] {
        screens.map { ["--screens", "on", "--display-size", $0] } ?? []
    }
}
