import C1nkAnswerer
import C1nkDisplay
import C1nkGLib
import C1nkMedia
import Glibc

/// Starts the wall display for the commands and connects it to the answerer:
/// events in, touches and keys out as commands, rings into the history.
final class DisplaySetup {
    let display: WallDisplay?
    let history: RingHistory
    private let recorder: RingHistoryRecorder
    private var readers: [EvdevReader] = []

    /// Starts the screens when the pipeline shows video (`{sink}`) and
    /// `--screens` allows it, and sends each call's video into them
    /// (`media.videoSink` becomes the display's call input).
    init(_ commandLine: AnswerCommandLine, media: inout MediaConfiguration) throws {
        history = RingHistory { FileOutput.standardError.write("c1nk-gst-answer: warning: \($0)\n", priority: .warning) }
        recorder = RingHistoryRecorder(history: history)
        if Self.screensWanted(commandLine, media: media) {
            var options = commandLine.display
            options.renderImmediately = media.renderImmediately
            let display = try WallDisplay(sink: media.videoSink, options: options, history: history)
            media.videoSink = display.callSink
            self.display = display
        } else {
            display = nil
        }
        var paths: [String] = []
        for input in commandLine.inputs {
            if input == "auto" {
                let found = EvdevReader.automaticPaths()
                if found.isEmpty {
                    throw EvdevReader.OpenError(description: "--input auto: no readable keyboard or touchscreen in /dev/input. Input devices belong to the input group: add this user to it (sudo usermod -aG input $USER) and log in again, or name a device: --input /dev/input/eventN")
                }
                paths += found
            } else {
                paths.append(input)
            }
        }
        readers = try paths.map { try EvdevReader(path: $0, displayWidth: commandLine.display.width, displayHeight: commandLine.display.height) }
    }

    /// Whether the screens run: the pipeline shows video (`{sink}`) and
    /// `--screens` is on, or auto with a sink other than fakesink.
    static func screensWanted(_ commandLine: AnswerCommandLine, media: MediaConfiguration) -> Bool {
        let sink = media.videoSink.trimmingWhitespace()
        let wanted = commandLine.screens == "on" || (commandLine.screens == "auto" && sink != "fakesink" && !sink.hasPrefix("fakesink "))
        return wanted && media.resolvedPipelineUses("sink")
    }

    /// Follows the answerer; touches, clicks and keys become its commands.
    func connect(_ answerer: Answerer, events: EventLog) {
        recorder.onChange = { [weak display] in display?.historyChanged() }
        // The log hands its typed events to `onEvent`: what the command set
        // there before (status lines, the control socket) runs first, then
        // the history and the display.
        let earlier = events.onEvent
        events.onEvent = { [recorder, weak display] event, object in
            earlier?(event, object)
            recorder.record(event, at: object["t"] as? Int64 ?? MainContext.unixMilliseconds())
            display?.event(event)
        }
        let report = { (problem: String?) in
            if let problem { Log.app.info("display input: \(problem)") }
        }
        if let display {
            answerer.onAction = { [weak display] action in
                if case .setMicrophoneMuted(let muted) = action { display?.microphoneMuted(muted) }
            }
            display.onCommand = { [weak answerer] command in report(answerer?.command(command)) }
            // The display's sounds, through the process's one speaker.
            display.onSound = { [weak answerer] sound in answerer?.speaker?.play(sound) }
        }
        for reader in readers {
            reader.onInput = { [weak display, weak answerer] input in
                if let display { return display.receive(input) }
                // No screens: keys still answer.
                if case .key(let name) = input, let command = KeyCommand.command(forKey: name, muted: false) {
                    report(answerer?.command(command))
                }
            }
        }
    }

    func stop() {
        readers.removeAll()
        display?.stop()
    }
}
