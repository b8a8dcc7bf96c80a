import FoundationEssentials
import Glibc

/// A call's file name from a `--record` or `--snapshot` template, expanded
/// once: the template's strftime conversions are filled from the date, and
/// each `{callId}` by the call's id made a safe name (`component`). Nothing
/// the id holds is read as a placeholder, a conversion or a folder.
enum CallFileName {
    /// At most this many bytes of an id go into a name.
    static let maximumComponentLength = 64

    /// `callId` as one file name component: letters, digits, `.`, `_` and
    /// `-` kept (the characters retention's patterns match), every other
    /// byte `_`, a leading dot `_` (no hidden file, no `..`), at most 64 bytes.
    static func component(_ callId: String) -> String {
        var bytes: [UInt8] = []
        for byte in callId.utf8.prefix(maximumComponentLength) {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "_"), UInt8(ascii: "-"):
                bytes.append(byte)
            case UInt8(ascii: "."):
                bytes.append(bytes.isEmpty ? UInt8(ascii: "_") : byte)
            default:
                bytes.append(UInt8(ascii: "_"))
            }
        }
        return bytes.isEmpty ? "_" : String(decoding: bytes, as: UTF8.self)
    }

    /// The template with its conversions filled for `date` and its `{callId}`s by `component(callId)`.
    static func expand(_ template: String, callId: String, date: Date) -> String {
        template.components(separatedBy: "{callId}")
            .map { RecordingTarget.strftime($0, date) }
            .joined(separator: component(callId))
    }
}
