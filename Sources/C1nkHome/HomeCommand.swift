import Foundation

/// A command that arrived on `<prefix>/command`: one of the stdin words
/// (`accept`, `reject`, `hangup`, `open`, `mute`, `unmute`), alone or as
/// JSON `{"command":"open"}`. Anything else is refused with the reason,
/// which the link publishes on `<prefix>/error`.
public enum HomeCommand: String, CaseIterable, Sendable {
    case accept, reject, hangup, open, mute, unmute

    /// Payloads above this are refused unread.
    public static let maximumBytes = 64 * 1024

    public static func parse(_ payload: [UInt8]) -> Result<HomeCommand, HomeCommandRefusal> {
        guard payload.count <= maximumBytes else { return .failure(.tooLarge(payload.count)) }
        guard let text = String(validating: payload, as: UTF8.self) else { return .failure(.notUTF8) }
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { return .failure(.empty) }
        var word = trimmed
        if trimmed.hasPrefix("{") {
            guard let object = try? JSONSerialization.jsonObject(with: Data(trimmed.utf8)) as? [String: Any] else {
                return .failure(.badJSON)
            }
            guard let value = object["command"] as? String else { return .failure(.badJSON) }
            word = value.trimmingCharacters(in: .whitespaces)
        }
        guard let command = HomeCommand(rawValue: word.lowercased()) else { return .failure(.unknown(word)) }
        return .success(command)
    }
}

public enum HomeCommandRefusal: Error, Equatable, Sendable, CustomStringConvertible {
    case tooLarge(Int), notUTF8, empty, badJSON, unknown(String)

    private static let words = HomeCommand.allCases.map(\.rawValue).joined(separator: ", ")

    public var description: String {
        switch self {
        case .tooLarge(let count):
            return "command refused: \(count) bytes is over the limit of \(HomeCommand.maximumBytes); send one word such as open"
        case .notUTF8:
            return "command refused: the payload is not UTF-8 text; send one of \(Self.words)"
        case .empty:
            return "command refused: the payload is empty; send one of \(Self.words)"
        case .badJSON:
            return "command refused: not JSON of the form {\"command\":\"open\"}; send that or one of \(Self.words)"
        case .unknown(let word):
            let shown = word.count > 40 ? String(word.prefix(40)) + "…" : word
            return "command refused: unknown command '\(shown)'; use one of \(Self.words)"
        }
    }
}
