/// The ids the server hands us (`callId`, `deviceId`) and the ids a door
/// gives the local server (`doorId`): data, checked against a strict
/// alphabet and length before anything is built from them. An id may then
/// appear in a log, an event, a file name (through `FileNameComponent`) or a
/// wire message, never in a pipeline's text.
public enum ServerIdentifier {
    /// Longer ids are refused: a UUID is 36 characters; nothing the server
    /// names needs more than a few of those.
    public static let maximumLength = 128

    /// What the alphabet is, in words, for log lines and docs.
    public static let alphabetDescription = "letters A–Z a–z, digits, '-', '_', '.' and ':'"

    /// Why `id` is refused, or nil when it is a valid id.
    public static func refusal(_ id: String) -> String? {
        let bytes = id.utf8
        if bytes.isEmpty { return "it is empty" }
        if bytes.count > maximumLength { return "it is \(bytes.count) bytes long, over \(maximumLength)" }
        if let bad = bytes.first(where: { !isAllowed($0) }) {
            return bad < 0x80 ? "it holds the byte 0x\(hex(bad)), outside \(alphabetDescription)"
                : "it holds a character outside \(alphabetDescription)"
        }
        if id.allSatisfy({ $0 == "." }) { return "it is only dots" }
        return nil
    }

    public static func isValid(_ id: String) -> Bool { refusal(id) == nil }

    /// `id` as it may be shown in a log line or an event: at most 64
    /// characters, every byte outside the alphabet written as `\xNN`.
    public static func printable(_ id: String) -> String {
        var result = ""
        var count = 0
        for byte in id.utf8 {
            if count == 64 { return result + "…" }
            if isAllowed(byte) { result.unicodeScalars.append(Unicode.Scalar(byte)) } else {
                result += "\\x" + hex(byte)
            }
            count += 1
        }
        return result
    }

    private static func hex(_ byte: UInt8) -> String { (byte < 0x10 ? "0" : "") + String(byte, radix: 16, uppercase: true) }

    static func isAllowed(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: ":"):
            return true
        default:
            return false
        }
    }
}
