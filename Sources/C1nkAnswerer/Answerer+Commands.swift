import C1nkGLib
import C1nkCall
import FoundationEssentials

extension Answerer {
    /// One line of manual answering: accept, reject, open, hangup, mute,
    /// unmute, or their first letters. Returns an error text for anything else.
    @discardableResult
    public func command(_ line: String) -> String? {
        let word = line.trimmingWhitespace().lowercased()
        guard !word.isEmpty else { return nil }
        guard let event = UserCommand.event(for: word) else { return UserCommand.unknown(word) }
        return user(event)
    }

    /// A user's action that comes as an event, not a word (a phone answering, its keys):
    /// the same checks as `command`'s. Returns the refusals' text, if any.
    @discardableResult
    public func user(_ event: CallMachine.Event) -> String? {
        if machine.call == nil { return "no call in progress" }
        let refusals = handle(event)
        return refusals.isEmpty ? nil : refusals.joined(separator: "; ")
    }
}

/// The words of manual answering and the event each one is for the call.
enum UserCommand {
    static let words: [(word: String, event: CallMachine.Event)] = [
        ("accept", .userAccept), ("reject", .userReject), ("open", .userOpenDoor),
        ("hangup", .userHangup), ("mute", .userMute(true)), ("unmute", .userMute(false)),
    ]

    /// The event `word` (lowercased) names, whole or by its first letter.
    static func event(for word: String) -> CallMachine.Event? {
        words.first { $0.word == word || String($0.word.prefix(1)) == word }?.event
    }

    static func unknown(_ word: String) -> String {
        "unknown command '\(word)'; use accept, reject, open, hangup, mute or unmute (or a, r, o, h, m, u)"
    }
}
