import FoundationEssentials

/// A JSON value, typed: what an event carries beyond its named fields (the
/// `measurements` figures), comparable in tests and safe to send across threads.
public enum JSONValue: Equatable, Sendable {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// The value as Swift's own types (`JSONNull` for null), as `text(of:)` writes them.
    public var any: Any {
        switch self {
        case .null: return JSONNull()
        case .bool(let value): return value
        case .int(let value): return value
        case .double(let value): return value
        case .string(let value): return value
        case .array(let values): return values.map(\.any)
        case .object(let fields): return fields.mapValues(\.any)
        }
    }

    /// Reads a value built of Swift's own types (`Bool`, `Int`, `Double`,
    /// `String`, arrays and string-keyed dictionaries of them); nil for anything else.
    public init?(any value: Any) {
        switch value {
        case is JSONNull: self = .null
        case let value as Bool: self = .bool(value)
        case let value as Int: self = .int(value)
        case let value as Int64: self = .int(Int(value))
        case let value as Double: self = .double(value)
        case let value as String: self = .string(value)
        case let values as [Any]:
            var array: [JSONValue] = []
            for element in values {
                guard let converted = JSONValue(any: element) else { return nil }
                array.append(converted)
            }
            self = .array(array)
        case let fields as [String: Any]:
            var object: [String: JSONValue] = [:]
            for (key, element) in fields {
                guard let converted = JSONValue(any: element) else { return nil }
                object[key] = converted
            }
            self = .object(object)
        default: return nil
        }
    }

    public var stringValue: String? { if case .string(let value) = self { return value } else { return nil } }
    public var boolValue: Bool? { if case .bool(let value) = self { return value } else { return nil } }
    public var intValue: Int? { if case .int(let value) = self { return value } else { return nil } }
    /// A number, integral or not.
    public var doubleValue: Double? {
        switch self {
        case .int(let value): return Double(value)
        case .double(let value): return value
        default: return nil
        }
    }
    public var arrayValue: [JSONValue]? { if case .array(let values) = self { return values } else { return nil } }
    public var objectValue: [String: JSONValue]? { if case .object(let fields) = self { return fields } else { return nil } }
}

extension JSONValue: Codable {
    public init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        // Bool before the numbers, integers before other numbers: JSON does not say which.
        if container.decodeNil() { self = .null }
        else if let value = try? container.decode(Bool.self) { self = .bool(value) }
        else if let value = try? container.decode(Int.self) { self = .int(value) }
        else if let value = try? container.decode(Double.self) { self = .double(value) }
        else if let value = try? container.decode(String.self) { self = .string(value) }
        else if let values = try? container.decode([JSONValue].self) { self = .array(values) }
        else { self = .object(try container.decode([String: JSONValue].self)) }
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .int(let value): try container.encode(value)
        case .double(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let values): try container.encode(values)
        case .object(let fields): try container.encode(fields)
        }
    }
}
