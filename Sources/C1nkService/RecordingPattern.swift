import C1nkGLibBase
import FoundationEssentials

/// The files a `--record` template can have written, and nothing else: the
/// template's fixed folder, with `{callId}` and strftime conversions turned
/// into what they produce, and the numbered (`-1`) and Matroska-instead-of-MP4
/// variants `RecordingTarget` may choose, and the snapshot (`.jpg`) beside
/// each. Retention deletes only these.
public struct RecordingPattern: Sendable {
    public let template: String
    /// The deepest folder of the template without a pattern in it.
    public let root: String
    /// Folder levels between `root` and the file.
    public let depth: Int
    // Never changed after init, matched from any thread (Regex is not marked Sendable).
    nonisolated(unsafe) private let expression: Regex<AnyRegexOutput>

    /// Refuses a template that could match files c1nk did not write: one with
    /// neither `{callId}` nor a date or time conversion.
    /// `option` names the template in messages (`--record`, `--snapshot`).
    public init(template: String, option: String = "--record") throws {
        self.template = template
        let hasCallId = template.contains("{callId}")
        let timeConversions: Set<Character> = ["Y", "y", "m", "d", "H", "M", "S", "s", "F", "T", "j", "G", "V", "U", "W", "e"]
        var hasTime = false
        var scan = Substring(template)
        while let percent = scan.firstIndex(of: "%"), scan.index(after: percent) < scan.endIndex {
            let next = scan[scan.index(after: percent)]
            if timeConversions.contains(next) { hasTime = true }
            scan = scan[scan.index(percent, offsetBy: 2)...]
        }
        guard hasCallId || hasTime else {
            throw RetentionError("\(option) \(template): retention deletes only files this pattern names, and it names no {callId} and no date or time (%Y%m%d-%H%M%S), so it could match files c1nk did not write; add {callId} or a timestamp to the file name")
        }
        let components = template.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        let fixed = components.prefix { !$0.contains("{") && !$0.contains("%") }
        guard fixed.count < components.count else { throw RetentionError("\(option) \(template): no file name pattern") }
        var root = fixed.joined(separator: "/")
        if root.isEmpty { root = template.hasPrefix("/") ? "/" : "." }
        self.root = root
        depth = components.count - fixed.count - 1
        var regex = "^" + Self.escaped(fixed.joined(separator: "/"))
        if !fixed.isEmpty { regex += "/" }
        let rest = components.dropFirst(fixed.count).joined(separator: "/")
        let base = rest.deletingPathExtension
        regex += Self.expression(for: base) + "(-[0-9]+)?\\.(mkv|mp4|jpg|jpeg)$"
        expression = try Regex(regex)
    }

    public func matches(_ path: String) -> Bool {
        (try? expression.firstMatch(in: path)) != nil
    }

    /// `text` matched as it is: regular expression syntax characters escaped.
    private static func escaped(_ text: String) -> String {
        var result = ""
        for character in text {
            if "\\^$.|?*+()[]{}".contains(character) { result.append("\\") }
            result.append(character)
        }
        return result
    }

    private static func expression(for pattern: String) -> String {
        var result = ""
        var rest = Substring(pattern)
        while let first = rest.first {
            if rest.hasPrefix("{callId}") {
                result += "[A-Za-z0-9._-]+"
                rest = rest.dropFirst("{callId}".count)
            } else if first == "%", rest.count >= 2 {
                let code = rest[rest.index(after: rest.startIndex)]
                switch code {
                case "Y", "G": result += "[0-9]{4}"
                case "y", "m", "d", "H", "M", "S", "V", "U", "W", "I": result += "[0-9]{2}"
                case "e": result += "[ 0-9][0-9]"
                case "j": result += "[0-9]{3}"
                case "s": result += "[0-9]+"
                case "F": result += "[0-9]{4}-[0-9]{2}-[0-9]{2}"
                case "T": result += "[0-9]{2}:[0-9]{2}:[0-9]{2}"
                case "%": result += "%"
                default: result += "[^/]+"
                }
                rest = rest.dropFirst(2)
            } else {
                result += Self.escaped(String(first))
                rest = rest.dropFirst()
            }
        }
        return result
    }
}

public struct RetentionError: Error, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
