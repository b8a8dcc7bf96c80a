/// `--decoder auto|software|ELEMENT`: which element decodes the door's video.
public enum DecoderPreference: Equatable, Sendable, CustomStringConvertible {
    /// The highest-ranked decoder for the door's codec that passed its probe
    /// (one keyframe decoded), hardware first where GStreamer ranks it so.
    case auto
    /// Never a hardware decoder.
    case software
    /// This element, for the codecs it decodes (a factory name, e.g. `v4l2h264dec`).
    case element(String)

    public struct Invalid: Error, CustomStringConvertible {
        public let description: String
    }

    /// A factory name is a GStreamer feature name: letters, digits, `-`, `_`.
    public init(_ value: String) throws {
        switch value {
        case "auto": self = .auto
        case "software": self = .software
        default:
            let allowed = value.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x7a) || $0 == 0x2d || $0 == 0x5f }
            guard !value.isEmpty, value.utf8.count <= 64, allowed else {
                throw Invalid(description: "--decoder takes auto, software or an element's name (such as v4l2h264dec), not '\(value)'")
            }
            self = .element(value)
        }
    }

    public var description: String {
        switch self {
        case .auto: return "auto"
        case .software: return "software"
        case .element(let name): return name
        }
    }
}
