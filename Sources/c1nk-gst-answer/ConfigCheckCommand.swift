import C1nkMedia
import C1nkPipeline
import C1nkService
import Glibc

/// `c1nk-gst-answer config --check FILE`: reads FILE as `--config FILE` does
/// (the same reader, the same `FILE:LINE: what`) and checks every value and
/// the options that go together as the command does at start, so that a
/// config can be checked before it is put in place (the Home Assistant
/// add-on checks the file it writes). It starts no GStreamer, connects
/// nowhere and writes nothing; building the pipeline is `doctor`'s job.
/// `FILE: OK` and exit 0, or each problem and exit 2 (1 when this machine
/// lacks the shipped pipelines, as at start).
enum ConfigCheckCommand {
    static func run(_ arguments: [String]) -> Int32 {
        let stderr = FileOutput.standardError
        let path: String
        if arguments.count == 2, arguments[0] == "--check" {
            path = arguments[1]
        } else if arguments.count == 1, arguments[0].hasPrefix("--check=") {
            path = String(arguments[0].dropFirst("--check=".count))
        } else {
            let given = arguments.isEmpty ? "" : ", not '\(arguments.joined(separator: " "))'"
            stderr.write("c1nk-gst-answer: config takes --check FILE\(given)\n", priority: .error)
            return 2
        }
        // The default video sink is chosen as the settings are made, and with a
        // DRM device that loads GStreamer's registry (and may write its cache).
        // A check shows no video: a display name stands in, for this process only.
        let set = { (name: String) in !(getenv(name).map { String(cString: $0) } ?? "").isEmpty }
        if !set("DISPLAY") && !set("WAYLAND_DISPLAY") { setenv("WAYLAND_DISPLAY", "c1nk-config-check", 1) }
        let problems: [String]
        do {
            problems = try check(path)
        } catch {
            stderr.write("c1nk-gst-answer: \(error)\n", priority: .error)
            return AnswerCommand.exitCode(for: error)
        }
        guard problems.isEmpty else {
            for problem in problems { stderr.write("c1nk-gst-answer: \(problem)\n", priority: .error) }
            return 2
        }
        print("\(path): OK")
        return 0
    }

    /// Every problem of the file, each as the command would say it at start;
    /// throws only what is this machine's (missing shipped pipelines).
    static func check(_ path: String) throws -> [String] {
        let settings: [AnswerCommandLine.Setting]
        do { settings = try AnswerCommandLine.readConfig(path) } catch { return ["\(error)"] }
        // Each key alone, so that every bad value is named, not only the first.
        var problems: [String] = []
        for setting in settings {
            do {
                _ = try AnswerCommandLine.settle(AnswerCommandLine(), commandLine: [setting], files: [])
            } catch {
                problems.append(located("\(error)", setting))
            }
        }
        guard problems.isEmpty else { return problems }
        let settled: AnswerCommandLine
        do { settled = try AnswerCommandLine.settle(AnswerCommandLine(), commandLine: [], files: [path]) } catch { return ["\(error)"] }
        return try together(settled, path: path)
    }

    /// `settle` names the line of a bad value; the STUN list's check, which runs after, does not.
    private static func located(_ text: String, _ setting: AnswerCommandLine.Setting) -> String {
        text.hasPrefix(setting.source + ": ") ? text
            : setting.source + ": " + text.replacing(setting.row.option, with: setting.row.name)
    }

    /// What the command checks at start across keys, short of building the pipeline.
    static func together(_ settings: AnswerCommandLine, path: String) throws -> [String] {
        func at(_ key: String) -> String { settings.sources[key] ?? path }
        var problems: [String] = []
        let media = settings.answerer.media
        if media.ice.transportPolicy == .relay && media.ice.turnServers.isEmpty {
            problems.append(at("ice-transport-policy") + ": --ice-transport-policy relay connects only through a TURN server: give --turn turn://user:pass@host:port")
        }
        do {
            var chosen = media
            if let name = settings.pipelineName { chosen.pipeline = try PipelineDescription.load(name) }
            let pipeline = try chosen.resolvedPipeline()
            // As PipelineDescription.validate says it before it builds the pipeline.
            if media.recording != nil && !pipeline.uses("record-location") {
                problems.append(at("record") + ": --record was given but the pipeline \(pipeline.name) does not record (it has no {record-location}); use --pipeline display-record or record")
            } else if media.recording == nil && pipeline.uses("record-location") {
                problems.append(at("pipeline") + ": the pipeline \(pipeline.name) records into {record-location}: give --record PATH")
            }
        } catch let error as PipelineError where !error.isMissingInstallation {
            problems.append(at("pipeline") + ": \(error)")
        }
        if let target = media.recording {
            do { _ = try RecordingRetention(policy: settings.retention, template: target.template) } catch {
                problems.append(at("record") + ": \(error)")
            }
        } else if settings.retention.deletes && media.snapshot.template == nil {
            problems.append(path + ": --keep-days and --keep-gb apply to recordings and snapshots: give --record PATH or --snapshot PATH too")
        }
        if let template = media.snapshot.template {
            do { _ = try RecordingRetention(policy: settings.retention, template: template, option: "--snapshot") } catch {
                problems.append(at("snapshot") + ": \(error)")
            }
        }
        for problem in [settings.mqtt.usageProblem, settings.rtsp.usageProblem, settings.web.usageProblem, settings.sip.usageProblem] {
            if let problem { problems.append(path + ": " + problem) }
        }
        return problems
    }
}
