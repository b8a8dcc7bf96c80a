import C1nkGLibBase
import C1nkProtocol
import FoundationEssentials

/// A command that arrived on `<prefix>/command`: one of the stdin words
/// (`accept`, `reject`, `hangup`, `open`, `mute`, `unmute`), alone or as
/// JSON `{"command":"open"}`, with the open code as `{"command":"open","code":"1234"}`
/// (what Home Assistant's lock sends). Anything else is refused with the
/// reason, which the link publishes on `<prefix>/error`.
public enum HomeCommand: String, CaseIterable, Sendable {
    case accept, reject, hangup, open, mute, unmute

    /// Payloads above this are refused unread (the client does not even copy them).
    public static let maximumBytes = 64 * 1024

    /// Accepting opens the microphone and lets the door be opened; opening opens it: both need the code.
    public var needsCode: Bool { self == .accept || self == .open }

    /// The command and the code that came with it, if any.
    public struct Request: Equatable, Sendable {
        public var command: HomeCommand
        /// The code's bytes, as sent; nil when the payload carried none.
        public var code: [UInt8]?

        public init(_ command: HomeCommand, code: [UInt8]? = nil) {
            self.command = command
            self.code = code
        }
    }

    public static func parse(_ payload: [UInt8]) -> Result<HomeCommand, HomeCommandRefusal> {
        request(payload).map(\.command)
    }

    public static func request(_ payload: [UInt8]) -> Result<Request, HomeCommandRefusal> {
        guard payload.count <= maximumBytes else { return .failure(.tooLarge(payload.count)) }
        guard let text = String(validating: payload, as: UTF8.self) else { return .failure(.notUTF8) }
        let trimmed = text.trimmingWhitespaceAndNewlines()
        guard !trimmed.isEmpty else { return .failure(.empty) }
        var word = trimmed
        var code: [UInt8]?
        if trimmed.hasPrefix("{") {
            guard let object = JSONValue.object(in: Data(trimmed.utf8)) else {
                return .failure(.badJSON)
            }
            guard let value = object["command"] as? String else { return .failure(.badJSON) }
            word = value.trimmingWhitespace()
            switch object["code"] {
            case nil, is JSONNull: break
            case let text as String: code = Array(text.utf8)
            default: return .failure(.badCode)
            }
        }
        // The door's lock in Home Assistant also has a lock action: the door locks by itself.
        if word.lowercased() == "lock" { return .failure(.lock) }
        guard let command = HomeCommand(rawValue: word.lowercased()) else { return .failure(.unknown(word)) }
        return .success(Request(command, code: code))
    }
}

public enum HomeCommandRefusal: Error, Equatable, Sendable, CustomStringConvertible {
    case tooLarge(Int), notUTF8, empty, badJSON, badCode, lock, unknown(String)

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
        case .badCode:
            return "command refused: the code is not a string; send {\"command\":\"open\",\"code\":\"1234\"}"
        case .lock:
            return "command refused: the door locks by itself; there is nothing to lock"
        case .unknown(let word):
            let shown = word.count > 40 ? String(word.prefix(40)) + "…" : word
            return "command refused: unknown command '\(shown)'; use one of \(Self.words)"
        }
    }
}
