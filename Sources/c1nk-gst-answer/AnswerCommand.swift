import C1nkGst
import Glibc

/// Wires the long-running answerer: identity, signaling, events, Unix signals
/// and standard input, then runs the main context until done.
enum AnswerCommand {
    static func run(_ commandLine: AnswerCommandLine) -> Int32 {
        let stderr = FileOutput.standardError
        do {
            try commandLine.answerer.media.validate()
        } catch {
            stderr.write("c1nk-gst-answer: \(error)\n")
            return 2
        }
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

        let answerer = Answerer(client: client, options: commandLine.answerer, events: events)
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
        MainContext.run { stopping || answerer.isFinished }
        if !stopping { answerer.shutdown() }
        withExtendedLifetime((watches, input)) {}
        return 0
    }
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
