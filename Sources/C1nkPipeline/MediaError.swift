/// What goes wrong in media, said so that a user can act on it.
public enum MediaError: Error, Equatable, CustomStringConvertible {
    case missingElement(String, package: String)
    case badDescription(String, detail: String)
    case badConfiguration(String)
    case negotiation(String)
    case pipeline(String)

    public var description: String {
        switch self {
        case let .missingElement(name, package):
            return "GStreamer element '\(name)' is not installed (Debian package \(package))"
        case let .badDescription(description, detail):
            return "cannot build the pipeline '\(description)': \(detail)"
        case let .badConfiguration(text), let .negotiation(text), let .pipeline(text):
            return text
        }
    }
}
