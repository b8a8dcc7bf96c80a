import C1nkAnswerer
import C1nkCommandLine
import C1nkDisplay
import C1nkGLib
import C1nkMQTT
import C1nkRTSP
import C1nkMedia
import C1nkViewers
import C1nkPipeline
import C1nkProbes
import C1nkService
import C1nkSIP
import C1nkSignaling
import C1nkWeb
import FoundationEssentials
import Glibc

/// Wires the long-running answerer: identity, signaling, events, Unix signals,
/// standard input, the control socket, retention and systemd notifications,
/// then runs the main context until done.
enum AnswerCommand {
    static func run(_ commandLine: AnswerCommandLine) -> Int32 {
        let stderr = FileOutput.standardError
        var options = commandLine.answerer
        do {
            options.media = try loadMedia(commandLine)
            // The web page's and the SIP phone's talk input mixed with the microphone (docs/web.md, docs/sip.md).
            if commandLine.takesTalk { options.media.audioSource = WebTalk.audioSource(wrapping: options.media.audioSource) }
        } catch {
            stderr.write("c1nk-gst-answer: \(error)\n", priority: .error)
            return exitCode(for: error)
        }
        do {
            try VideoDecoders.apply(options.media.decoder)
        } catch {
            stderr.write("c1nk-gst-answer: \(error)\nRun c1nk-gst-answer doctor to see the video decoders of this machine.\n", priority: .error)
            return 2
        }
        // Hardware decoders that cannot decode one keyframe are given up before the first ring.
        if options.media.decoder != .software { VideoDecoders.probeHardware() }
        if options.media.resolvedPipelineUses("sink"), let problem = SinkCheck.problem(opening: options.media.videoSink) {
            stderr.write("c1nk-gst-answer: \(problem)\n", priority: .error)
            return 1
        }
        let screens: DisplaySetup
        do {
            screens = try DisplaySetup(commandLine, media: &options.media)
        } catch {
            stderr.write("c1nk-gst-answer: \(error)\n", priority: .error)
            return 1
        }
        defer { screens.stop() }
        var retention: RecordingRetention?
        if let target = options.media.recording {
            do {
                retention = try RecordingRetention(policy: commandLine.retention, template: target.template)
            } catch {
                stderr.write("c1nk-gst-answer: \(error)\n", priority: .error)
                return 2
            }
        } else if commandLine.retention.deletes && options.media.snapshot.template == nil {
            stderr.write("c1nk-gst-answer: --keep-days and --keep-gb apply to recordings and snapshots: give --record PATH or --snapshot PATH too\nRun c1nk-gst-answer --help to see the options.\n", priority: .error)
            return 2
        }
        var snapshotRetention: RecordingRetention?
        if let template = options.media.snapshot.template {
            do {
                snapshotRetention = try RecordingRetention(policy: commandLine.retention, template: template, option: "--snapshot")
            } catch {
                stderr.write("c1nk-gst-answer: \(error)\n", priority: .error)
                return 2
            }
        }
        if let problem = commandLine.mqtt.usageProblem ?? commandLine.rtsp.usageProblem ?? commandLine.sip.usageProblem {
            stderr.write("c1nk-gst-answer: \(problem)\nRun c1nk-gst-answer --help to see the options.\n", priority: .error)
            return 2
        }
        if let problem = commandLine.web.usageProblem {
            stderr.write("c1nk-gst-answer: \(problem)\nRun c1nk-gst-answer --help to see the options.\n", priority: .error)
            return 2
        }
        let slots: CallSlots?
        do {
            slots = try commandLine.capacity.makeSlots(for: options.media)
        } catch {
            stderr.write("c1nk-gst-answer: \(error)\n", priority: .error)
            return 1
        }
        let events: EventLog
        let identity: DeviceIdentity
        let client: SignalClient
        var control: ControlServer?
        var home: HomeMQTT?
        var web: WebServer?
        var webMedia: WebMedia?
        var restream: RTSPRestream?
        var sip: SIPBridge?
        var sipMedia: SIPMedia?
        do {
            events = try commandLine.eventsPath.map { try EventLog(path: $0) } ?? EventLog()
            let path = commandLine.deviceIdFile ?? DeviceIdentity.defaultPath()
            identity = try DeviceIdentity.loadOrCreate(at: path) { stderr.write("c1nk-gst-answer: warning: \($0)\n", priority: .warning) }
            options.media.videoCodecMemory = VideoCodecMemory(besideDeviceIdFile: identity.path)
            var configuration = SignalClient.Configuration(url: commandLine.server, deviceId: identity.id)
            configuration.bundleId = commandLine.bundleId
            configuration.trustedCAFile = commandLine.trustedCAFile
            client = try SignalClient(configuration)
            control = try commandLine.controlPath.map { try ControlServer(path: $0, mode: mode_t(commandLine.controlMode)) }
            home = try commandLine.mqtt.makeHome(deviceId: identity.id)
            web = try commandLine.web.makeServer(recordingTemplate: options.media.recording.flatMap { $0.discards ? nil : $0.template })
            restream = try commandLine.rtsp.makeRestream()
            sip = try commandLine.sip.makeBridge()
        } catch {
            stderr.write("c1nk-gst-answer: \(error)\n", priority: .error)
            return 1
        }
        client.onDeviceIdAssigned = { id in
            do { _ = try DeviceIdentity.store(id, at: identity.path) } catch {
                stderr.write("c1nk-gst-answer: warning: \(error)\n", priority: .warning)
            }
        }

        let notifier = ServiceNotifier()
        var current = commandLine
        var recordingsInProgress: Set<String> = []
        events.onEvent = { event, object in
            if !current.quiet, let line = StatusLine.text(event, manual: current.answerer.answerMode == .manual) {
                var isError = false
                if case .error = event { isError = true }
                stderr.write("c1nk-gst-answer: \(line)\n", priority: isError ? .error : .info)
            }
            control?.broadcast(object)
            home?.send(event)
            web?.send(event, object: object)
            webMedia?.event(event)
            restream?.handle(event)
            sipMedia?.event(event)
            sip?.door(event)
            switch event {
            case .registered: notifier.ready(status: StatusLine.text(event, manual: false) ?? "registered")
            case .ringing, .missed, .accepted, .ended, .disconnected, .connectFailed:
                // `systemctl status` shows what the doorbell is doing.
                if let line = StatusLine.text(event, manual: false) { notifier.status(line) }
            case .recording(_, let path): recordingsInProgress.insert(path)
            case .recorded(_, let path, _): recordingsInProgress.remove(path)
            default: break
            }
            retention?.protected = recordingsInProgress
        }
        let installRetention = { (r: RecordingRetention?) in
            r?.onDeleted = { path, reason in events.emit(.deleted(path: path, reason: reason.rawValue)) }
            r?.protected = recordingsInProgress
        }
        installRetention(retention)
        installRetention(snapshotRetention)
        options.beforeRecording = { retention?.prepareForRecording() }
        let answerer = Answerer(signaller: client, options: options, events: events,
                                makeMedia: restream?.mediaFactory() ?? AnswerSession.factory)
        answerer.capacity = slots
        screens.connect(answerer, events: events)
        control?.onCommand = { answerer.command($0) }
        home?.command = { answerer.command($0) }
        web?.api.command = { answerer.command($0) }
        webMedia = web.map { _ in WebMedia(answerer: answerer) }
        web?.api.whep = { webMedia?.offer($0, client: $1, reply: $2) }
        web?.api.whepDelete = { webMedia?.delete($0) ?? false }
        web?.api.viewerCount = { webMedia?.viewerCount ?? 0 }
        web?.api.clientGone = { webMedia?.clientGone($0) }
        webMedia?.talker = { web?.api.state.phase == .call ? web?.api.state.acceptedBy : nil }
        home?.onStatus = { status in MQTTStatus.report(status, url: commandLine.mqtt.url ?? "", quiet: current.quiet, events: events) }
        sipMedia = sip.map { _ in SIPMedia(answerer: answerer) }
        if let sip { sipMedia?.attach(to: sip) }
        // Posted: they arise inside the answerer's own events, and go out after them.
        sip?.onEvent = { event in MainContext.post { events.emit(event) } }
        sip?.onUser = { event in
            MainContext.post {
                if let refusal = answerer.user(event) { Log.app.warning("the SIP phone's \(event): \(refusal)") }
            }
        }

        var stopping = false
        let stop = { (name: String) in
            guard !stopping else { return }
            stopping = true
            notifier.stopping()
            Log.app.info("\(name): ending the call in progress and stopping")
            answerer.shutdown()
        }
        let reload = {
            let outcome = Reload.run(current)
            for line in outcome.report { stderr.write("c1nk-gst-answer: \(line)\n", priority: outcome.failed ? .error : .notice) }
            guard let fresh = outcome.settings else {
                events.emit(.error(message: outcome.report.joined(separator: "; ")))
                return
            }
            var newOptions = fresh.answerer
            if fresh.takesTalk { newOptions.media.audioSource = WebTalk.audioSource(wrapping: newOptions.media.audioSource) }
            newOptions.exitAfterCalls = answerer.options.exitAfterCalls
            newOptions.media.ice = answerer.options.media.ice
            newOptions.media.videoCodecMemory = answerer.options.media.videoCodecMemory
            // The display pipeline lives as long as the process: calls keep sending it their video.
            if let display = screens.display { newOptions.media.videoSink = display.callSink }
            newOptions.beforeRecording = answerer.options.beforeRecording
            if let target = newOptions.media.recording {
                retention = try? RecordingRetention(policy: fresh.retention, template: target.template)
            } else {
                retention = nil
            }
            snapshotRetention = newOptions.media.snapshot.template.flatMap {
                try? RecordingRetention(policy: fresh.retention, template: $0, option: "--snapshot")
            }
            installRetention(retention)
            installRetention(snapshotRetention)
            answerer.options = newOptions
            current = fresh
            events.emit(.reloaded(applied: outcome.applied, needsRestart: outcome.needsRestart))
            retention?.sweep()
            snapshotRetention?.sweep()
        }
        let watches = [UnixSignalWatch(signal: SIGINT) { stop("SIGINT") },
                       UnixSignalWatch(signal: SIGTERM) { stop("SIGTERM") },
                       UnixSignalWatch(signal: SIGHUP) { reload() }]
        // Standard input closing (a service has none) is no reason to exit.
        let input = LineReader(fd: 0, onLine: { line in
            if let problem = answerer.command(line) { stderr.write("c1nk-gst-answer: \(problem)\n", priority: .warning) }
        })
        notifier.startWatchdog()
        retention?.sweep()
        snapshotRetention?.sweep()
        let hourly = GLibTimer(after: 3600, repeats: true) {
            retention?.sweep()
            snapshotRetention?.sweep()
        }
        home?.start()
        sip?.start()
        answerer.start()
        MainContext.run(poll: nil) { stopping || answerer.isFinished }
        if !stopping {
            notifier.stopping()
            answerer.shutdown()
        }
        control?.stop()
        home?.stop()
        web?.stop()
        restream?.stop()
        stopBridge(sip)
        withExtendedLifetime((watches, input, hourly, notifier, restream, sipMedia)) {}
        return 0
    }

    /// The phones hung up and the registration taken back, for 5 s at most.
    static func stopBridge(_ bridge: SIPBridge?) {
        guard let bridge else { return }
        var stopped = false
        bridge.stop { stopped = true }
        let bound = GLibTimer(after: 5) { stopped = true }
        MainContext.run(poll: nil) { stopped }
        withExtendedLifetime(bound) {}
    }

    /// A missing plugin or missing shipped pipelines is this machine's
    /// problem (exit 1, install something); anything else is the user's (2).
    static func exitCode(for error: Error) -> Int32 {
        if let error = error as? PipelineError, error.isMissingInstallation { return 1 }
        if case MediaError.missingElement = error { return 1 }
        return 2
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

/// Unbuffered text to a file descriptor; on standard error under systemd
/// each line carries its journal priority.
struct FileOutput {
    let fd: Int32
    static let standardError = FileOutput(fd: 2)
    func write(_ text: String, priority: Journal.Priority = .info) {
        let prefix = fd == 2 ? Journal.prefix(priority) : ""
        let bytes = Array((prefix + text).utf8)
        bytes.withUnsafeBytes { _ = Glibc.write(fd, $0.baseAddress, $0.count) }
    }
}
