/// The code that accepting and opening over MQTT need (`--mqtt-open-code-file`):
/// Home Assistant's lock convention, the code inside the command's payload.
/// Compared in constant time; never published, logged or shown.
public struct HomeOpenCode: Sendable, CustomStringConvertible {
    private let bytes: [UInt8]

    /// Longer codes are refused when the file is read; a longer code in a command is wrong.
    public static let maximumBytes = 64

    /// `text` without its line end; nil when it is empty, too long or holds a control character.
    public init?(_ text: String) {
        guard !text.isEmpty, text.utf8.count <= Self.maximumBytes,
              !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else { return nil }
        bytes = Array(text.utf8)
    }

    /// Whether `given` is the code. The time taken depends on neither where
    /// they first differ nor, up to `maximumBytes`, the code's length.
    public func matches(_ given: [UInt8]) -> Bool {
        guard given.count <= Self.maximumBytes else { return false }
        var difference: UInt8 = given.count == bytes.count ? 0 : 1
        for index in 0..<Self.maximumBytes {
            let a = index < given.count ? given[index] : 0
            let b = index < bytes.count ? bytes[index] : 0
            difference |= a ^ b
        }
        return difference == 0
    }

    /// Home Assistant's `code_format`, a regular expression its dialog checks
    /// the code against: digits only when the code is digits (a keypad), else any text.
    public var format: String {
        bytes.allSatisfy { (0x30...0x39).contains($0) } ? "^\\d+$" : "^.+$"
    }

    /// Never the code itself.
    public var description: String { "HomeOpenCode(…)" }
}
