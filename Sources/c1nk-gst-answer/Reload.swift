import C1nkService
import FoundationEssentials

/// SIGHUP: reads the config files again (the command line still wins) and
/// says which settings change now and which need a restart.
enum Reload {
    struct Outcome {
        /// The new settings, nil when the files have an error (the old ones stay).
        var settings: AnswerCommandLine?
        var applied: [String] = []
        var needsRestart: [String] = []
        var report: [String] = []
        var failed: Bool { settings == nil }
    }

    static func run(_ current: AnswerCommandLine, environment: [String: String] = ProcessInfo.processInfo.environment) -> Outcome {
        var outcome = Outcome()
        do {
            var base = AnswerCommandLine()
            base.commandLineSettings = current.commandLineSettings
            for setting in current.commandLineSettings where setting.row.scope == .commandLineOnly {
                for value in setting.values { try setting.row.apply(&base, value) }
            }
            let files = try AnswerCommandLine.configFiles(explicit: current.configPath, demo: false, environment: environment)
            var fresh = try AnswerCommandLine.settle(base, commandLine: current.commandLineSettings, files: files)
            fresh.answerer.media = try loadMedia(fresh)
            if let target = fresh.answerer.media.recording {
                _ = try RecordingRetention(policy: fresh.retention, template: target.template)
            }
            for row in AnswerOption.all where row.scope == .everywhere {
                guard let show = row.show, show(current) != show(fresh) else { continue }
                if row.reload == .live { outcome.applied.append(row.name) } else { outcome.needsRestart.append(row.name) }
            }
            // What needs a restart keeps its running value.
            for name in outcome.needsRestart { fresh.sources[name] = current.sources[name] }
            outcome.settings = fresh
            outcome.report.append("SIGHUP: reloaded " + (files.isEmpty ? "(no config file)" : files.joined(separator: ", ")))
        } catch {
            outcome.report.append("SIGHUP: the config was not reloaded, the current settings stay: \(error)")
        }
        return outcome
    }
}
