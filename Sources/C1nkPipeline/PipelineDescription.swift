import C1nkGLib
import C1nkPipelines
import CGStreamer
import Foundation

/// The media graph around `webrtcbin` for a call, loaded from a `.pipeline`
/// file in gst-launch syntax (docs/pipelines.md). The same format serves the
/// shipped pipelines and a user's own.
///
/// Named elements connect the description to the call:
/// `video-in` / `audio-in` take the door's RTP, `audio-out` gives RTP toward
/// the door, `video-out` is where frames are counted, and the `volume`
/// elements `microphone` and `speaker` are the privacy gates, muted until the
/// user accepts.
public struct PipelineDescription: Equatable, Sendable {
    /// Placeholders the user fills with options.
    public static let userPlaceholders = ["sink", "audio-source", "audio-sink", "record-location"]
    /// Placeholders c1nk fills for each call from the door's offer and `--record`.
    public static let callPlaceholders = ["audio-encoder", "video-depay", "video-decoder", "audio-depay", "record-muxer"]

    public static let defaultName = "display"
    public static let defaultRecordingName = "display-record"

    /// The name given (`display`) or the file's path.
    public let name: String
    public let path: String
    /// The file's lines, comments removed.
    package let lines: [String]

    /// Loads a shipped pipeline by name, or a file by path.
    public static func load(_ nameOrPath: String) throws -> PipelineDescription {
        let isPath = nameOrPath.contains("/") || nameOrPath.hasSuffix(".pipeline")
        let path: String
        if isPath {
            path = nameOrPath
        } else {
            guard let directory = ShippedPipelines.directory else {
                var error = PipelineError(file: nameOrPath, message: "the shipped pipelines were not found (looked in \(ShippedPipelines.candidates().joined(separator: ", "))); reinstall c1nk-gst (scripts/install puts them in PREFIX/share/c1nk-gst/pipelines), set C1NK_PIPELINES_DIR or give a file path")
                error.isMissingInstallation = true
                throw error
            }
            path = directory + "/" + nameOrPath + ".pipeline"
            guard FileManager.default.fileExists(atPath: path) else {
                throw PipelineError(file: nameOrPath, message: "no shipped pipeline of that name; choose one of \(shippedNames(in: directory).joined(separator: ", ")) or give a file path")
            }
        }
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw PipelineError(file: path, message: "cannot read the file")
        }
        return try PipelineDescription(name: nameOrPath, path: path, text: text)
    }

    public init(name: String, path: String, text: String) throws {
        self.name = name
        self.path = path
        lines = text.components(separatedBy: "\n").map { line in
            line.firstIndex(of: "#").map { String(line[..<$0]) } ?? line
        }
        for (index, line) in lines.enumerated() {
            for placeholder in Self.placeholders(in: line)
            where !Self.userPlaceholders.contains(placeholder) && !Self.callPlaceholders.contains(placeholder) {
                throw PipelineError(file: path, line: index + 1, message: "unknown placeholder {\(placeholder)}; known: "
                    + (Self.userPlaceholders + Self.callPlaceholders).map { "{\($0)}" }.joined(separator: " "))
            }
        }
        if lines.allSatisfy({ $0.trimmingCharacters(in: .whitespaces).isEmpty }) {
            throw PipelineError(file: path, message: "the description is empty")
        }
    }

    /// Names of the shipped pipelines.
    public static func shippedNames(in directory: String? = ShippedPipelines.directory) -> [String] {
        guard let directory, let files = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return [] }
        return files.filter { $0.hasSuffix(".pipeline") }.map { String($0.dropLast(".pipeline".count)) }.sorted()
    }

    /// Whether the description uses `{name}`.
    public func uses(_ placeholder: String) -> Bool {
        lines.contains { $0.contains("{\(placeholder)}") }
    }

    /// Builds the description into a pipeline with `values` for its
    /// placeholders; the call adds its `webrtcbin` beside the elements.
    /// Errors name the file, the line and the element.
    func build(_ values: [String: String]) throws -> UnsafeMutablePointer<GstElement> {
        let expanded = lines.map { MediaConfiguration.fill($0, values) }
        for (index, line) in expanded.enumerated() {
            if let missing = Self.placeholders(in: line).first {
                throw PipelineError(file: path, line: index + 1, message: "{\(missing)} has no value here")
            }
        }
        GStreamer.initialize()
        var error: UnsafeMutablePointer<GError>?
        let parsed = gst_parse_launch_full(expanded.joined(separator: "\n"), nil, GST_PARSE_FLAG_FATAL_ERRORS, &error)
        if let error {
            let failure = GLibError.take(error)
            if let parsed { gst_object_unref(UnsafeMutableRawPointer(parsed)) }
            throw locate(failure, in: expanded)
        }
        guard let top = parsed else { throw PipelineError(file: path, message: "the description builds nothing") }
        gst_object_ref_sink(UnsafeMutableRawPointer(top))
        // A description of several chains parses into a pipeline; one chain of
        // one element does not, so give it one.
        var bin = top
        if g_type_is_a(c1nk_object_type(UnsafeMutableRawPointer(top)), gst_pipeline_get_type()) == 0 {
            bin = gst_pipeline_new(nil)
            gst_object_ref_sink(UnsafeMutableRawPointer(bin))
            gst_bin_add(UnsafeMutableRawPointer(bin).assumingMemoryBound(to: GstBin.self), top)
            gst_object_unref(UnsafeMutableRawPointer(top))
        }
        do {
            try checkNamedElements(bin)
            try checkPrivacyGates()
        } catch {
            gst_object_unref(UnsafeMutableRawPointer(bin))
            throw error
        }
        return bin
    }

    /// Builds once with stand-in values for the per-call placeholders, and
    /// checks that `values` and the description fit together.
    public func validate(_ values: [String: String], recording: Bool) throws {
        if recording && !uses("record-location") {
            throw PipelineError(file: path, message: "--record was given but this pipeline does not record (it has no {record-location}); use --pipeline display-record or record")
        }
        if !recording && uses("record-location") {
            throw PipelineError(file: path, message: "this pipeline records into {record-location}: give --record PATH")
        }
        var all = values
        for (key, value) in Self.standInValues where all[key] == nil { all[key] = value }
        if all["record-location"] == nil { all["record-location"] = "/dev/null" }
        let bin = try build(all)
        gst_object_unref(UnsafeMutableRawPointer(bin))
    }

    static let standInValues = [
        "audio-encoder": "opusenc ! rtpopuspay pt=111",
        "video-depay": "rtpvp8depay",
        "video-decoder": "vp8dec",
        "audio-depay": "rtpopusdepay",
        "record-muxer": "matroskamux",
    ]

    // MARK: - Checks and error locations

    private func checkNamedElements(_ bin: UnsafeMutablePointer<GstElement>) throws {
        func has(_ name: String) -> Bool {
            guard let element = Gst.find(name, in: bin) else { return false }
            gst_object_unref(UnsafeMutableRawPointer(element))
            return true
        }
        if !has("video-in") && !has("audio-in") {
            throw PipelineError(file: path, message: "nothing takes the door's media: name an element video-in or audio-in")
        }
        if has("audio-out") && !has("microphone") {
            throw PipelineError(file: path, element: "audio-out",
                                message: "audio goes to the door but there is no volume named 'microphone' (the gate that keeps it off until you accept)")
        }
        if uses("audio-sink") && !has("speaker") {
            throw PipelineError(file: path, element: "{audio-sink}",
                                message: "door audio is played but there is no volume named 'speaker' (the gate that keeps it silent until you accept)")
        }
        for name in ["video-in", "audio-in"] {
            guard let element = Gst.find(name, in: bin) else { continue }
            defer { gst_object_unref(UnsafeMutableRawPointer(element)) }
            guard let pad = gst_element_get_static_pad(element, "sink") else {
                throw PipelineError(file: path, line: lineNumber(containing: name), element: name, message: "\(name) must have a sink pad")
            }
            gst_object_unref(UnsafeMutableRawPointer(pad))
        }
    }

    /// Turns a parse error into one that names the line and element, and the
    /// Debian package of a missing element.
    private func locate(_ failure: GLibError, in expanded: [String]) -> PipelineError {
        var quoted = failure.message.split(separator: "\"", omittingEmptySubsequences: false)
            .enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) }
        if failure.message.hasPrefix("could not link ") {
            // "could not link audiotestsrc11 to videoconvert15": the names the
            // parser gave; without their number they are what the file says.
            let words = failure.message.split(separator: " ")
            if words.count >= 6 {
                let names = [words[3], words[5]].map { String($0.reversed().drop { $0.isNumber }.reversed()) }
                quoted = names
                var message = "\(names[0]) cannot link to \(names[1]): their pads have no format in common"
                var line: Int?
                if let found = expanded.firstIndex(where: { $0.contains(names[0]) && $0.contains(names[1]) })
                    ?? expanded.firstIndex(where: { $0.contains(names[0]) }) {
                    line = found + 1
                } else {
                    message += " (one of them comes from a placeholder value)"
                }
                return PipelineError(file: path, line: line, element: names[0], message: message)
            }
        }
        var message = failure.message
        var element: String?
        var missingInstallation = false
        if failure.message.hasPrefix("no element"), let name = quoted.first {
            element = name
            message = "no element \"\(name)\": not a GStreamer element, or its plugin is not installed"
            if let package = PluginPackages.package(forElement: name) {
                message += "; install the Debian package \(package)"
                missingInstallation = true
            }
        } else if let name = quoted.last {
            element = name
        }
        var line: Int?
        if quoted.isEmpty, let culprit = faultyValue(in: expanded) {
            // No element named: find the placeholder value that does not parse alone.
            return PipelineError(file: path, line: culprit.line, element: "{\(culprit.placeholder)}",
                                 message: "\(failure.message) in the value given for {\(culprit.placeholder)}")
        }
        for token in quoted {
            if let found = expanded.firstIndex(where: { $0.contains(token) }) {
                line = found + 1
                if !lines[found].contains(token), let placeholder = Self.placeholders(in: lines[found]).first {
                    message += " (from {\(placeholder)})"
                }
                break
            }
        }
        var error = PipelineError(file: path, line: line, element: element, message: message)
        error.isMissingInstallation = missingInstallation
        return error
    }

    /// The first user placeholder whose value does not parse on its own.
    private func faultyValue(in expanded: [String]) -> (line: Int, placeholder: String)? {
        for (index, line) in lines.enumerated() {
            for placeholder in Self.placeholders(in: line) where Self.userPlaceholders.contains(placeholder) {
                // Recover the value from the expanded line around the placeholder's surroundings.
                let parts = line.components(separatedBy: "{\(placeholder)}")
                var value = expanded[index]
                if let prefix = parts.first, value.hasPrefix(prefix) { value.removeFirst(prefix.count) }
                if let suffix = parts.last, parts.count == 2, value.hasSuffix(suffix) { value.removeLast(suffix.count) }
                var error: UnsafeMutablePointer<GError>?
                let element = gst_parse_bin_from_description_full(value, 0, nil, GST_PARSE_FLAG_FATAL_ERRORS, &error)
                if let element { gst_object_unref(UnsafeMutableRawPointer(element)) }
                if error != nil {
                    g_error_free(error)
                    return (index + 1, placeholder)
                }
            }
        }
        return nil
    }

    private func lineNumber(containing token: String) -> Int? {
        lines.firstIndex { $0.contains(token) }.map { $0 + 1 }
    }

    static func placeholders(in line: String) -> [String] {
        var result: [String] = []
        var rest = Substring(line)
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            let name = rest[rest.index(after: open)..<close]
            if !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" }) { result.append(String(name)) }
            rest = rest[rest.index(after: close)...]
        }
        return result
    }
}

/// A pipeline description that cannot be used, said as `file:line: element: what`.
public struct PipelineError: Error, Equatable, CustomStringConvertible {
    public let file: String
    public var line: Int?
    public var element: String?
    public let message: String
    /// Something this machine lacks (a plugin, the shipped pipelines) rather
    /// than a mistake in the description: a runtime failure, not bad usage.
    public var isMissingInstallation = false

    public init(file: String, line: Int? = nil, element: String? = nil, message: String) {
        self.file = file
        self.line = line
        self.element = element
        self.message = message
    }

    public var description: String {
        var text = file
        if let line { text += ":\(line)" }
        if let element { text += ": element '\(element)'" }
        return text + ": " + message
    }
}
