import C1nkGLib
import CGStreamer

/// Builds a bin from a gst-launch description, with errors a user can act on.
package enum PipelineBin {
    /// Name of the element whose sink pad becomes the bin's "sink".
    package static let inputName = "c1nk-in"
    /// Name of the element whose src pad becomes the bin's "src".
    package static let outputName = "c1nk-out"

    /// Parses `description` into a bin called `name`. With `input`, an
    /// `identity` named `c1nk-in` is put in front and its sink pad ghosted;
    /// with `output`, the element named `c1nk-out` has its src pad ghosted.
    /// (GStreamer's own "ghost unlinked pads" picks the wrong pads when the
    /// description has a `decodebin`, whose links appear only later.)
    package static func parse(_ description: String, name: String, input: Bool = false, output: Bool = false) throws -> Bin {
        GStreamer.initialize()
        let full = input ? "identity name=\(inputName) silent=true ! \(description)" : description
        var error: UnsafeMutablePointer<GError>?
        // The parser's result is floating: retaining sinks it.
        let parsed = gst_parse_bin_from_description_full(full, 0, nil, GST_PARSE_FLAG_FATAL_ERRORS, &error)
            .map { Bin(retaining: $0) }
        if let error { throw MediaError.badDescription(description, detail: explain(GLibError.take(error))) }
        guard let bin = parsed else { throw MediaError.badDescription(description, detail: "empty description") }
        if input { try ghost(bin, element: inputName, pad: "sink", description) }
        if output { try ghost(bin, element: outputName, pad: "src", description) }
        bin.name = name
        return bin
    }

    /// The same, as a pointer with the caller's reference (+1), for callers
    /// that still own bins by hand; prefer `parse`.
    package static func make(_ description: String, name: String, input: Bool = false, output: Bool = false) throws -> UnsafeMutablePointer<GstElement> {
        try parse(description, name: name, input: input, output: output).passRetained()
    }

    private static func ghost(_ bin: Bin, element: String, pad: String, _ description: String) throws {
        guard let inner = bin.element(named: element) else {
            throw MediaError.badDescription(description, detail: "no element named \(element)")
        }
        guard let target = inner.staticPad(pad) else {
            throw MediaError.badDescription(description, detail: "\(element) has no \(pad) pad")
        }
        bin.addGhostPad(pad, target: target)
    }

    /// Adds the Debian package that brings a missing element, when we know it.
    private static func explain(_ error: GLibError) -> String {
        var text = error.message
        if let range = text.firstRange(of: "no element \"") {
            let name = text[range.upperBound...].prefix { $0 != "\"" }
            if let package = PluginPackages.package(forElement: String(name)) {
                text += " (install the Debian package \(package))"
            }
        }
        return text
    }
}
