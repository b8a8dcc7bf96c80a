/// Who may accept and open over MQTT: only a command with the open code,
/// only during a call, and at most `allowedWrongCodes` wrong codes a ring
/// (after that, the rest of that ring is refused, right code or not), so
/// that whoever can publish on the command topic cannot guess the code.
/// Without a code, accepting and opening over MQTT are off.
public struct HomeCodeGate: Sendable {
    public let code: HomeOpenCode?
    public static let allowedWrongCodes = 5
    public private(set) var wrongCodes = 0

    public init(code: HomeOpenCode?) { self.code = code }

    public enum Verdict: Equatable, Sendable {
        case allowed
        /// The reason, for `<prefix>/error`.
        case refused(String)
        /// A wrong code: the reason, and how many this ring has had.
        case wrongCode(String, count: Int)
    }

    /// A new ring: its guesses start again from none.
    public mutating func newRing() { wrongCodes = 0 }

    /// Whether `request` may go to the answerer. While no call is in
    /// progress the code is not even compared: there is nothing to guess against.
    public mutating func check(_ request: HomeCommand.Request, inCall: Bool) -> Verdict {
        guard request.command.needsCode else { return .allowed }
        let word = request.command.rawValue
        guard let code else {
            return .refused("\(word) over MQTT is off: this answerer was started without --mqtt-open-code-file")
        }
        guard inCall else { return .refused("no call in progress") }
        guard wrongCodes < Self.allowedWrongCodes else {
            return .refused("\(word) refused: \(Self.allowedWrongCodes) wrong codes in this ring; accept and open over MQTT are refused until the next ring")
        }
        guard let given = request.code else {
            return .refused("\(word) needs the code: send {\"command\":\"\(word)\",\"code\":\"…\"} (Home Assistant's lock asks for it)")
        }
        guard code.matches(given) else {
            wrongCodes += 1
            let left = Self.allowedWrongCodes - wrongCodes
            return .wrongCode("\(word) refused: wrong code (\(wrongCodes) of \(Self.allowedWrongCodes) in this ring"
                              + (left == 0 ? "; the rest of this ring is refused)" : ")"), count: wrongCodes)
        }
        return .allowed
    }
}
