import C1nkGLib
import C1nkPipelines
import CGStreamer
import FoundationEssentials

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
            for placeholder in Placeholders.names(in: line)
            where !Self.userPlaceholders.contains(placeholder) && !Self.callPlaceholders.contains(placeholder) {
                throw PipelineError(file: path, line: index + 1, message: "unknown placeholder {\(placeholder)}; known: "
                    + (Self.userPlaceholders + Self.callPlaceholders).map { "{\($0)}" }.joined(separator: " "))
            }
        }
        if lines.allSatisfy({ $0.trimmingWhitespace().isEmpty }) {
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
    /// Paths (`pathPlaceholders`) are set as properties, never parsed.
    /// Errors name the file, the line and the element.
    public func makePipeline(_ values: [String: String]) throws -> Pipeline {
        let (expanded, paths) = parserLines(values)
        for (index, line) in expanded.enumerated() {
            if let missing = Placeholders.names(in: line).first {
                throw PipelineError(file: path, line: index + 1, message: "{\(missing)} has no value here")
            }
        }
        GStreamer.initialize()
        var error: UnsafeMutablePointer<GError>?
        // The parser's result is floating: retaining sinks it.
        let parsed = gst_parse_launch_full(expanded.joined(separator: "\n"), nil, GST_PARSE_FLAG_FATAL_ERRORS, &error)
            .map { Element(retaining: $0) }
        if let error { throw locate(GLibError.take(error), in: expanded) }
        guard let top = parsed else { throw PipelineError(file: path, message: "the description builds nothing") }
        let pipeline = Self.asPipeline(top)
        try setPaths(paths, in: pipeline)
        try checkNamedElements(pipeline)
        try checkPrivacyGates()
        return pipeline
    }

    /// The same, as a pointer with the caller's reference (+1), for callers
    /// that still own pipelines by hand; prefer `makePipeline`.
    package func build(_ values: [String: String]) throws -> UnsafeMutablePointer<GstElement> {
        try makePipeline(values).passRetained()
    }

    /// A description of several chains parses into a pipeline; one chain of
    /// one element does not, so give it one.
    static func asPipeline(_ top: Element) -> Pipeline {
        if top.isA(gst_pipeline_get_type()) { return Pipeline(retaining: top.pointer) }
        let pipeline = Pipeline(retaining: gst_pipeline_new(nil))
        pipeline.add(top)
        return pipeline
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
        _ = try makePipeline(all)
    }

    package static let standInValues = [
        "audio-encoder": "opusenc ! rtpopuspay pt=111",
        "video-depay": "rtpvp8depay",
        "video-decoder": "vp8dec",
        "audio-depay": "rtpopusdepay",
        "record-muxer": "matroskamux",
    ]

    // MARK: - Checks

    private func checkNamedElements(_ bin: Bin) throws {
        func has(_ name: String) -> Bool { bin.element(named: name) != nil }
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
            guard let element = bin.element(named: name) else { continue }
            if element.staticPad("sink") == nil {
                throw PipelineError(file: path, line: lineNumber(containing: name), element: name, message: "\(name) must have a sink pad")
            }
        }
    }

    private func lineNumber(containing token: String) -> Int? {
        lines.firstIndex { $0.contains(token) }.map { $0 + 1 }
    }
}
