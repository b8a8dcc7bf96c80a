/// A key pressed on the phone, from either way a phone sends one: an RFC 4733
/// telephone-event (its event number) or a SIP INFO body. Only the sixteen
/// DTMF keys exist; anything else is not a key.
public enum PhoneKey {
    static let keys: [Character] = ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "*", "#", "A", "B", "C", "D"]

    /// RFC 4733 §3.2: events 0–9 are the digits, 10 is `*`, 11 is `#`, 12–15 are A–D.
    public static func key(event: Int) -> Character? {
        keys.indices.contains(event) ? keys[event] : nil
    }

    /// `application/dtmf-relay` (`Signal=#` and `Duration=…` lines) or
    /// `application/dtmf` (the key alone, or its event number), at most 256 bytes.
    public static func key(infoType: String, body: String) -> Character? {
        guard body.utf8.count <= 256 else { return nil }
        let type = infoType.lowercased()
        let value: Substring
        if type == "application/dtmf-relay" {
            guard let line = body.split(whereSeparator: \.isNewline).first(where: {
                $0.lowercased().hasPrefix("signal")
            }), let equals = line.firstIndex(of: "=") else { return nil }
            value = line[line.index(after: equals)...]
        } else if type == "application/dtmf" {
            value = Substring(body)
        } else {
            return nil
        }
        let text = String(value.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed()).uppercased()
        if let number = Int(text), !(0...9).contains(number) || text.count > 1 { return key(event: number) }
        guard text.count == 1, let key = text.first, keys.contains(key) else { return nil }
        return key
    }
}
