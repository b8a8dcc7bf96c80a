import C1nkGst
import Glibc

/// Wires the long-running answerer: identity, signaling, events, Unix signals
/// and standard input, then runs the main context until done.
enum AnswerCommand {
    static func run(_ commandLine: AnswerCommandLine) -> Int32 {
        let stderr = FileOutput.standardError
        var options = commandLine.answerer
        do {
            options.media = try loadMedia(commandLine)
        } catch {
            stderr.write("c1nk-gst-answer: \(error)\n")
            return 2
        }
        if options.media.resolvedPipelineUses("sink"), let problem = SinkCheck.problem(opening: options.media.videoSink) {
            stderr.write("c1nk-gst-answer: \(problem)\n")
            return 1
        }
        let screens: DisplaySetup
        do {
            screens = try DisplaySetup(commandLine, media: &options.media)
        } catch {
            stderr.write("c1nk-gst-answer: \(error)\n")
            return 1
        }
        defer { screens.stop() }
        let events: EventLog
        let identity: DeviceIdentity
        let client: SignalClient
        do {
            events = try commandLine.eventsPath.map { try EventLog(path: $0) } ?? EventLog()
            let path = commandLine.deviceIdFile ?? DeviceIdentity.defaultPath()
            identity = try DeviceIdentity.loadOrCreate(at: path) { stderr.write("c1nk-gst-answer: warning: \($0)\n") }
            var configuration = SignalClient.Configuration(url: commandLine.server, deviceId: identity.id)
            configuration.bundleId = commandLine.bundleId
            configuration.trustedCAFile = commandLine.trustedCAFile
            client = try SignalClient(configuration)
        } catch {
            stderr.write("c1nk-gst-answer: \(error)\n")
            return 1
        }
        client.onDeviceIdAssigned = { id in
            do { _ = try DeviceIdentity.store(id, at: identity.path) } catch {
                stderr.write("c1nk-gst-answer: warning: \(error)\n")
            }
        }

        if !commandLine.quiet {
            events.onEvent = { name, fields in
                if let line = StatusLine.text(name, fields, manual: options.answerMode == .manual) {
                    stderr.write("c1nk-gst-answer: \(line)\n")
                }
            }
        }
        let answerer = Answerer(client: client, options: options, events: events)
        screens.connect(answerer, events: events)
        var stopping = false
        let stop = { (name: String) in
            guard !stopping else { return }
            stopping = true
            Log.app.info("\(name): ending the call in progress and stopping")
            answerer.shutdown()
        }
        let watches = [UnixSignalWatch(signal: SIGINT) { stop("SIGINT") },
                       UnixSignalWatch(signal: SIGTERM) { stop("SIGTERM") }]
        // Standard input closing (a service has none) is no reason to exit.
        let input = LineReader(fd: 0, onLine: { line in
            if let problem = answerer.command(line) { stderr.write("c1nk-gst-answer: \(problem)\n") }
        })
        answerer.start()
        MainContext.run(poll: nil) { stopping || answerer.isFinished }
        if !stopping { answerer.shutdown() }
        withExtendedLifetime((watches, input)) {}
        return 0
    }
}

/// Loads the pipeline (`--pipeline`, or the default for the job) and checks
/// it against the media options before any call: every problem is a usage error.
func loadMedia(_ commandLine: AnswerCommandLine, media: MediaConfiguration? = nil) throws -> MediaConfiguration {
    var media = media ?? commandLine.answerer.media
    if let name = commandLine.pipelineName { media.pipeline = try PipelineDescription.load(name) }
    let pipeline = try media.resolvedPipeline()
    for (placeholder, option) in commandLine.givenPlaceholders.sorted(by: { $0.key < $1.key }) where !pipeline.uses(placeholder) {
        throw ArgumentReader.UsageError("\(option) has no effect: the pipeline \(pipeline.path) has no {\(placeholder)}")
    }
    return try media.validated()
}

/// Unbuffered text to a file descriptor.
struct FileOutput {
    let fd: Int32
    static let standardError = FileOutput(fd: 2)
    func write(_ text: String) {
        let bytes = Array(text.utf8)
        bytes.withUnsafeBytes { _ = Glibc.write(fd, $0.baseAddress, $0.count) }
    }
}

/// What a person at the terminal reads about the events (standard error;
/// `--events` has them all as JSON).
enum StatusLine {
    static func text(_ name: String, _ fields: [String: Any], manual: Bool) -> String? {
        func field(_ key: String) -> String { fields[key].map { "\($0)" } ?? "?" }
        switch name {
        case "connected": return "connected to \(field("server"))"
        case "registered": return "hello-ok: registered as device \(field("deviceId")); waiting for rings"
        case "disconnected": return "disconnected (\(field("reason"))); reconnecting"
        case "connect-failed": return "cannot reach the server (\(field("reason"))); retrying in \(field("retryIn")) s"
        case "ringing":
            return "RING: \(field("doorName"))" + (manual ? " — type accept (a) or reject (r), then Enter" : "")
        case "accepted": return "accepted: talk" + (manual ? "; open (o), mute (m), unmute (u), hangup (h)" : "")
        case "first-frame": return "the door's video is showing"
        case "door-opened": return "ODOMKNUTÉ: the door is open"
        case "ended": return "call ended: \(field("reason"))"
        case "recording": return "recording to \(field("path"))"
        case "recorded": return "recorded \(field("path"))"
        case "error": return "error: \(field("message"))"
        default: return nil
        }
    }
}
