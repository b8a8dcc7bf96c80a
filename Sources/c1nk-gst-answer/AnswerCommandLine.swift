import C1nkAnswerer
import C1nkCommandLine
import C1nkDisplay
import C1nkGLib
import C1nkMedia
import C1nkService
import FoundationEssentials

/// The settings of `c1nk-gst-answer`, from the option table
/// (`AnswerOption.all`): defaults, then the config files, then the command
/// line, which wins.
struct AnswerCommandLine {
    var server = "wss://sig.c1nk.eu/ws"
    var serverGiven = false
    var answerer = Answerer.Options()
    var eventsPath: String?
    var deviceIdFile: String?
    var bundleId = "eu.c1nk.app"
    var trustedCAFile: String?
    var demo = false
    var help = false
    var quiet = false
    var doctor = false
    var stunGiven: [String] = []
    var pipelineName: String?
    var recordTemplate: String?
    var retention = RetentionPolicy()
    var controlPath: String?
    var controlMode: UInt32 = 0o600
    var mqtt = MQTTCommandOptions()
    var web = WebCommandOptions()
    var rtsp = RTSPCommandOptions()
    var sip = SIPCommandOptions()
    /// `--max-calls`, `--calls-dir`: the machine's call slots.
    var capacity = CapacityOptions()
    /// `--gst-debug`: GST_DEBUG for this process, set before GStreamer starts.
    var gstDebug: String?
    var configPath: String?
    var printConfig = false
    /// Media options the user set, which the pipeline must have a place for.
    var givenPlaceholders: [String: String] = [:]
    /// The wall display: `--screens on|off|auto` (auto: on unless the sink is fakesink).
    var screens = "auto"
    var display = WallDisplay.Options()
    /// `--input`: Linux input devices (or recorded streams) for keys and touch.
    var inputs: [String] = []
    /// `--history`: print the ring history and exit.
    var printHistory = false
    /// Where each setting came from: "command line" or "FILE:LINE" (absent: the default).
    var sources: [String: String] = [:]
    /// The config files read, in order.
    var configFiles: [String] = []
    /// The command-line settings, kept for a SIGHUP reload.
    var commandLineSettings: [Setting] = []

    /// Whether the call's microphone gets the talk input: the web page's or a SIP phone's voice joins it.
    var takesTalk: Bool { web.port != nil || !sip.ring.isEmpty }

    static let systemConfigPath = "/etc/c1nk/answer.conf"
    static let configGroup = "answer"

    static var usage: String {
        """
        Usage: c1nk-gst-answer [OPTIONS]
               c1nk-gst-answer doctor [OPTIONS]
               c1nk-gst-answer web-password [--web-password-file PATH]
               c1nk-gst-answer config --check FILE
               c1nk-gst-answer --demo

        Answers the C1nk doorbell: rings at once, shows the door's video, lets you
        talk and open the door. Media runs in GStreamer's webrtcbin.
        `doctor` checks this machine for a call with these settings (✔/✘ per line).
        `config --check FILE` checks a config file's keys and values as a start would,
        without starting anything: FILE: OK (exit 0), or each problem as FILE:LINE (exit 2).

        \(AnswerOption.helpText())

        Config: every option except those of "Other" and --config/--print-config is also
        a key of the same name in the [\(configGroup)] group of \(systemConfigPath), then
        $XDG_CONFIG_HOME/c1nk/answer.conf (~/.config/c1nk/answer.conf), or --config FILE
        instead of both; flags take true or false, repeatable options a;b. The command
        line wins. SIGHUP re-reads them.
        Logs: GST_DEBUG=c1nk*:5 shows c1nk's own debug lines among GStreamer's.
        Exit codes: 0 success, 1 runtime failure (a missing plugin, an unreachable file), 2 bad usage.
        """
    }

    /// One option's values and where they came from.
    struct Setting {
        let row: AnswerOption
        var values: [String]
        let source: String
        let fromFile: Bool
    }

    static func parse(_ arguments: [String], environment: [String: String] = ProcessInfo.processInfo.environment) throws -> AnswerCommandLine {
        var arguments = arguments
        var result = AnswerCommandLine()
        if arguments.first == "doctor" {
            result.doctor = true
            arguments.removeFirst()
        }
        let given = try readCommandLine(arguments)
        result.commandLineSettings = given
        // --config and --demo decide which files are read.
        for setting in given where setting.row.scope == .commandLineOnly {
            for value in setting.values { try setting.row.apply(&result, value) }
        }
        let files = try configFiles(explicit: result.configPath, demo: result.demo, environment: environment)
        return try settle(result, commandLine: given, files: files)
    }

    /// Applies defaults, `files` and the command line in table order.
    static func settle(_ base: AnswerCommandLine, commandLine given: [Setting], files: [String]) throws -> AnswerCommandLine {
        var result = base
        result.configFiles = files
        var settings: [String: Setting] = [:]
        for file in files {
            for setting in try readConfig(file) { settings[setting.row.name] = setting }
        }
        for setting in given where setting.row.scope == .everywhere { settings[setting.row.name] = setting }
        for row in AnswerOption.all where row.scope == .everywhere {
            guard let setting = settings[row.name] else { continue }
            result.sources[row.name] = setting.source
            // A sink in the shared config file is no error for a pipeline without one
            // (the recorder); on the command line it is.
            let placeholders = result.givenPlaceholders
            defer { if setting.fromFile { result.givenPlaceholders = placeholders } }
            for value in setting.values {
                do {
                    try row.apply(&result, value)
                } catch let error as ArgumentReader.UsageError where setting.fromFile {
                    throw ArgumentReader.UsageError(setting.source + ": " + error.message.replacing(row.option, with: row.name))
                }
            }
        }
        try result.settleStun()
        return result
    }

    private mutating func settleStun() throws {
        guard !stunGiven.isEmpty else { return }
        if stunGiven.contains("none") {
            guard stunGiven.count == 1 else { throw ArgumentReader.UsageError("--stun none cannot be combined with STUN servers") }
            answerer.media.ice.stunServers = []
        } else {
            for url in stunGiven where !url.hasPrefix("stun:") {
                throw ArgumentReader.UsageError("--stun takes stun:host:port or none, not '\(url)'")
            }
            answerer.media.ice.stunServers = stunGiven
        }
    }

    private static func readCommandLine(_ arguments: [String]) throws -> [Setting] {
        var reader = ArgumentReader(arguments)
        var settings: [Setting] = []
        while let option = try reader.nextOption() {
            let name = option.hasPrefix("--") ? String(option.dropFirst(2)) : option
            guard let row = AnswerOption.named(name) ?? AnswerOption.named(option) else {
                throw ArgumentReader.UsageError("unknown option \(option)")
            }
            let value: String
            switch row.kind {
            case .flag: value = "true"
            case .value, .list: value = try reader.value(for: row.option)
            }
            if case .list = row.kind, let index = settings.firstIndex(where: { $0.row.name == row.name }) {
                settings[index].values.append(value)
            } else {
                settings.removeAll { $0.row.name == row.name }
                settings.append(Setting(row: row, values: [value], source: "command line", fromFile: false))
            }
        }
        return settings
    }

    /// The config files to read: `--config FILE` alone, or the system file then the user's.
    static func configFiles(explicit: String?, demo: Bool, environment: [String: String]) throws -> [String] {
        if let explicit {
            guard FileManager.default.isReadableFile(atPath: explicit) else {
                throw ArgumentReader.UsageError("--config: cannot read \(explicit)")
            }
            return [explicit]
        }
        if demo { return [] }
        let home = environment["HOME"] ?? FileManager.default.homeDirectoryForCurrentUser.path
        let xdg = environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? home + "/.config"
        let system = environment["C1NK_SYSTEM_CONFIG"] ?? systemConfigPath
        return [system, xdg + "/c1nk/answer.conf"].filter { FileManager.default.fileExists(atPath: $0) }
    }

    /// The settings in one config file; unknown keys and groups are errors with their line.
    static func readConfig(_ path: String) throws -> [Setting] {
        let file: KeyFile
        do { file = try KeyFile(path: path) } catch let error as KeyFileError {
            throw ArgumentReader.UsageError(error.description)
        }
        var settings: [Setting] = []
        for entry in file.entries {
            let source = "\(path):\(entry.line)"
            guard entry.group == configGroup else {
                throw ArgumentReader.UsageError("\(source): unknown group [\(entry.group)]; the keys belong in [\(configGroup)]")
            }
            guard let row = AnswerOption.all.first(where: { $0.name == entry.key }), row.scope == .everywhere else {
                let close = AnswerOption.all.filter { $0.scope == .everywhere && ($0.name.hasPrefix(entry.key.prefix(3)) ) }.map(\.name)
                throw ArgumentReader.UsageError("\(source): unknown key '\(entry.key)'"
                    + (close.isEmpty ? "" : "; did you mean \(close.joined(separator: " or "))?")
                    + " (c1nk-gst-answer --help lists the keys)")
            }
            let values: [String]
            do {
                switch row.kind {
                case .list: values = try file.list(entry)
                case .flag, .value: values = [try file.string(entry)]
                }
            } catch let error as KeyFileError {
                throw ArgumentReader.UsageError(error.description)
            }
            settings.removeAll { $0.row.name == row.name }
            settings.append(Setting(row: row, values: values, source: source, fromFile: true))
        }
        return settings
    }

    /// `--print-config`: every key, its effective value and where it came from.
    var printedConfig: String {
        var lines = ["# c1nk-gst-answer effective settings",
                     "# config files read: " + (configFiles.isEmpty ? "none" : configFiles.joined(separator: ", ")),
                     "[\(Self.configGroup)]"]
        let rows = AnswerOption.all.filter { $0.scope == .everywhere }
        let width = rows.map(\.name.count).max() ?? 0
        for row in rows {
            let value = row.show?(self) ?? ""
            let name = row.name + String(repeating: " ", count: width - row.name.count)
            // Where it came from goes on a line of its own (a key file has no
            // comments after a value); an unset key is a comment, so the output
            // is itself a valid config file.
            lines.append("# \(row.name): " + (sources[row.name] ?? "default"))
            lines.append((value.isEmpty ? "# " : "") + "\(name) = \(value)")
        }
        return lines.joined(separator: "\n")
    }
}
