import C1nkGLib
import CGStreamer

/// Where in the description a failure to build lies: the line, the
/// element, the placeholder value, and the package of a missing element.
extension PipelineDescription {
    /// Turns a parse error into one that names the line and element, and the
    /// Debian package of a missing element.
    func locate(_ failure: GLibError, in expanded: [String]) -> PipelineError {
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
                if !lines[found].contains(token), let placeholder = Placeholders.names(in: lines[found]).first {
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
            for placeholder in Placeholders.names(in: line) where Self.userPlaceholders.contains(placeholder) {
                // Recover the value from the expanded line around the placeholder's surroundings.
                let parts = line.components(separatedBy: "{\(placeholder)}")
                var value = expanded[index]
                if let prefix = parts.first, value.hasPrefix(prefix) { value.removeFirst(prefix.count) }
                if let suffix = parts.last, parts.count == 2, value.hasSuffix(suffix) { value.removeLast(suffix.count) }
                if !Self.parsesAlone(value) { return (index + 1, placeholder) }
            }
        }
        return nil
    }

    /// Whether `value` parses into a bin of its own (what it built is dropped).
    private static func parsesAlone(_ value: String) -> Bool {
        var error: UnsafeMutablePointer<GError>?
        // Floating: retaining sinks it, and the wrapper drops it.
        _ = gst_parse_bin_from_description_full(value, 0, nil, GST_PARSE_FLAG_FATAL_ERRORS, &error).map { Element(retaining: $0) }
        guard let error else { return true }
        _ = GLibError.take(error)
        return false
    }
}
