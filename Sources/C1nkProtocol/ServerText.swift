/// The free text the server sends (a door's name, a call's end reason, an
/// error's message): shown on the wall, in events and on the page, so each
/// is capped and stripped of control and direction-changing characters
/// before anything else sees it. Never an id: ids are `ServerIdentifier`'s.
public enum ServerText {
    /// A door's name: one line of at most 64 characters.
    public static let maximumNameLength = 64
    /// A reason or an error message: at most 512 characters.
    public static let maximumMessageLength = 512

    /// `text` on one line: control and format characters (newlines, NUL,
    /// bidirectional overrides) become spaces, runs of spaces one, the ends
    /// trimmed, and at most `limit` characters kept (an ellipsis marks a cut).
    public static func line(_ text: String, limit: Int) -> String {
        var result = ""
        var count = 0
        var pendingSpace = false
        for scalar in text.unicodeScalars {
            let category = scalar.properties.generalCategory
            if scalar.properties.isWhitespace || category == .control || category == .format
                || category == .lineSeparator || category == .paragraphSeparator || category == .surrogate
                || category == .privateUse || category == .unassigned {
                pendingSpace = !result.isEmpty
                continue
            }
            if pendingSpace { result.unicodeScalars.append(" "); count += 1; pendingSpace = false }
            if count >= limit { return result.trimmingTrailingSpace() + "…" }
            result.unicodeScalars.append(scalar)
            count += 1
        }
        return result
    }

    /// A door's name as it may be shown; empty becomes the default name.
    public static func doorName(_ text: String?) -> String {
        let name = line(text ?? "", limit: maximumNameLength)
        return name.isEmpty ? ServerMessage.defaultDoorName : name
    }

    public static func message(_ text: String) -> String { line(text, limit: maximumMessageLength) }
}

private extension String {
    func trimmingTrailingSpace() -> String {
        var copy = self
        while copy.unicodeScalars.last == " " { copy.unicodeScalars.removeLast() }
        return copy
    }
}
