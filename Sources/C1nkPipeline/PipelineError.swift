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
