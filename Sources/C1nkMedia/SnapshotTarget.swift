import C1nkGLib
import FoundationEssentials

/// Where the visitor's snapshot of a call is written (`--snapshot`): beside
/// the call's recording (the default: the recording's name with `.jpg`), to
/// a path of its own with the same `{callId}` and strftime rules as
/// `--record`, or nowhere. An existing file is never overwritten.
public enum SnapshotTarget: Equatable, Sendable {
    case besideRecording
    case pattern(String)
    case off

    /// `--snapshot PATH|off`; PATH ends in `.jpg` (added when it has no extension).
    public init(_ value: String) throws {
        if value == "off" { self = .off; return }
        let ext = value.pathExtension.lowercased()
        let template: String
        switch ext {
        case "jpg", "jpeg": template = value
        case "": template = value + ".jpg"
        default: throw RecordingTarget.InvalidPath("--snapshot takes a .jpg path (or off), not '\(value)'")
        }
        let directory = template.deletingLastPathComponent
        if !directory.isEmpty && !directory.contains("{") && !directory.contains("%") {
            var isDirectory = false
            guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory else {
                throw RecordingTarget.InvalidPath("--snapshot: the folder \(directory) does not exist")
            }
        }
        self = .pattern(template)
    }

    /// The template retention matches, when snapshots have one of their own.
    public var template: String? {
        if case .pattern(let template) = self { return template }
        return nil
    }

    /// The file for one call's snapshot, never an existing one; nil when
    /// there is nowhere to write it (off, or beside a recording that is not kept).
    public func file(callId: String, recordingPath: String?, date: Date = Date()) -> String? {
        let path: String
        switch self {
        case .off: return nil
        case .besideRecording:
            guard let recordingPath else { return nil }
            path = recordingPath.deletingPathExtension + ".jpg"
        case .pattern(let template):
            path = CallFileName.expand(template, callId: callId, date: date)
        }
        guard FileManager.default.fileExists(atPath: path) else { return path }
        let base = path.deletingPathExtension
        let ext = path.pathExtension
        var n = 1
        while FileManager.default.fileExists(atPath: "\(base)-\(n).\(ext)") { n += 1 }
        return "\(base)-\(n).\(ext)"
    }
}
