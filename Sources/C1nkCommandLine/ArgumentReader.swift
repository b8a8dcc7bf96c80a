/// Reads `--name value`, `--name=value` and `--flag` arguments for the
/// commands, with usage errors that say what to fix (exit code 2).
public struct ArgumentReader {
    public struct UsageError: Error, CustomStringConvertible {
        public let message: String
        public init(_ message: String) { self.message = message }
        public var description: String { message }
    }

    private var arguments: [String]
    private var index = 0

    public init(_ arguments: [String]) { self.arguments = arguments }

    /// The next option name (with its `--`), or nil at the end. A bare word is an error.
    public mutating func nextOption() throws -> String? {
        guard index < arguments.count else { return nil }
        let argument = arguments[index]
        index += 1
        guard argument.hasPrefix("--") else {
            throw UsageError("unexpected argument '\(argument)' (options start with --)")
        }
        if let equals = argument.firstIndex(of: "=") {
            // --name=value: hand the value to the next `value(for:)`.
            arguments.insert(String(argument[argument.index(after: equals)...]), at: index)
            return String(argument[..<equals])
        }
        return argument
    }

    public mutating func value(for option: String) throws -> String {
        guard index < arguments.count else { throw UsageError("\(option) needs a value") }
        let value = arguments[index]
        index += 1
        return value
    }

    public mutating func number(for option: String, minimum: Double = 0, maximum: Double = .infinity) throws -> Double {
        try Self.number(value(for: option), for: option, minimum: minimum, maximum: maximum)
    }

    public mutating func integer(for option: String, minimum: Int = 0, maximum: Int = .max) throws -> Int {
        try Self.integer(value(for: option), for: option, minimum: minimum, maximum: maximum)
    }

    public mutating func choice(for option: String, _ choices: [String]) throws -> String {
        try Self.choice(value(for: option), for: option, choices)
    }

    /// `text` as a number from `minimum` to `maximum`; anything else is a usage error.
    public static func number(_ text: String, for option: String, minimum: Double = 0, maximum: Double = .infinity) throws -> Double {
        guard let number = Double(text), number.isFinite, number >= minimum, number <= maximum else {
            let range = maximum.isFinite ? "from \(format(minimum)) to \(format(maximum))"
                : minimum == 0 ? "of 0 or more" : "of at least \(minimum)"
            throw UsageError("\(option) takes a number \(range), not '\(text)'")
        }
        return number
    }

    public static func integer(_ text: String, for option: String, minimum: Int = 0, maximum: Int = .max) throws -> Int {
        guard let number = Int(text), number >= minimum, number <= maximum else {
            let range = maximum == .max ? "of at least \(minimum)" : "from \(minimum) to \(maximum)"
            throw UsageError("\(option) takes a whole number \(range), not '\(text)'")
        }
        return number
    }

    public static func choice(_ text: String, for option: String, _ choices: [String]) throws -> String {
        guard choices.contains(text) else {
            throw UsageError("\(option) takes one of \(choices.joined(separator: ", ")), not '\(text)'")
        }
        return text
    }

    private static func format(_ number: Double) -> String {
        number == number.rounded() && abs(number) < 1e15 ? String(Int(number)) : String(number)
    }
}

/// Checks a signaling server URL given on the command line.
public func validateServerURL(_ url: String, option: String = "--server") throws {
    guard url.hasPrefix("ws://") || url.hasPrefix("wss://"), url.count > 6 else {
        throw ArgumentReader.UsageError("\(option) takes a ws:// or wss:// URL, not '\(url)'")
    }
}
