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

    public mutating func number(for option: String, minimum: Double = 0) throws -> Double {
        let text = try value(for: option)
        guard let number = Double(text), number.isFinite, number >= minimum else {
            throw UsageError("\(option) takes a number \(minimum == 0 ? "of 0 or more" : "of at least \(minimum)"), not '\(text)'")
        }
        return number
    }

    public mutating func integer(for option: String, minimum: Int = 0) throws -> Int {
        let text = try value(for: option)
        guard let number = Int(text), number >= minimum else {
            throw UsageError("\(option) takes a whole number of at least \(minimum), not '\(text)'")
        }
        return number
    }

    public mutating func choice(for option: String, _ choices: [String]) throws -> String {
        let text = try value(for: option)
        guard choices.contains(text) else {
            throw UsageError("\(option) takes one of \(choices.joined(separator: ", ")), not '\(text)'")
        }
        return text
    }
}

/// Checks a signaling server URL given on the command line.
public func validateServerURL(_ url: String, option: String = "--server") throws {
    guard url.hasPrefix("ws://") || url.hasPrefix("wss://"), url.count > 6 else {
        throw ArgumentReader.UsageError("\(option) takes a ws:// or wss:// URL, not '\(url)'")
    }
}
