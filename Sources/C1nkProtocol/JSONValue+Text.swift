import FoundationEssentials

/// JSON text of Swift's own values and back, as Foundation's `JSONSerialization`
/// wrote and read it: the answerer does not link Foundation, to keep ICU out of its memory.
extension JSONValue {
    /// The JSON text of a value built of Swift's own types (those of `init(any:)`,
    /// and integers of any width), written as `JSONSerialization` wrote it (no
    /// spaces; `sortedKeys` in its order; `/` escaped unless `escapingSlashes`
    /// is false); nil for anything else, or a number JSON cannot hold (NaN, infinity).
    public static func text(of object: Any, sortedKeys: Bool = false, escapingSlashes: Bool = true) -> Data? {
        guard let value = writable(object) else { return nil }
        var bytes: [UInt8] = []
        guard value.write(to: &bytes, sortedKeys: sortedKeys, escapingSlashes: escapingSlashes) else { return nil }
        return Data(bytes)
    }

    /// The value in a JSON text; nil when it is not JSON.
    public init?(text: Data) {
        guard let value = try? JSONDecoder().decode(JSONValue.self, from: text) else { return nil }
        self = value
    }

    /// The object in a JSON text, its values as `any` gives them (`JSONNull` for null);
    /// nil when the text is not JSON or not an object.
    public static func object(in text: Data) -> [String: Any]? {
        JSONValue(text: text)?.any as? [String: Any]
    }

    /// `init(any:)`, with integers of every width as `JSONSerialization` took them.
    private static func writable(_ object: Any) -> JSONValue? {
        switch object {
        case is Bool: return JSONValue(any: object)
        case let value as any BinaryInteger: return Int(exactly: value).map(JSONValue.int)
        case let values as [Any]:
            var array: [JSONValue] = []
            for element in values {
                guard let converted = writable(element) else { return nil }
                array.append(converted)
            }
            return .array(array)
        case let fields as [String: Any]:
            var result: [String: JSONValue] = [:]
            for (key, element) in fields {
                guard let converted = writable(element) else { return nil }
                result[key] = converted
            }
            return .object(result)
        default: return JSONValue(any: object)
        }
    }

    private func write(to out: inout [UInt8], sortedKeys: Bool, escapingSlashes: Bool) -> Bool {
        switch self {
        case .null: out += Array("null".utf8)
        case .bool(let value): out += Array((value ? "true" : "false").utf8)
        case .int(let value): out += Array(String(value).utf8)
        case .double(let value):
            guard value.isFinite else { return false }
            var text = value.description
            if text.hasSuffix(".0") { text.removeLast(2) }
            out += Array(text.utf8)
        case .string(let value): Self.write(value, to: &out, escapingSlashes: escapingSlashes)
        case .array(let values):
            out.append(UInt8(ascii: "["))
            for (index, value) in values.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                guard value.write(to: &out, sortedKeys: sortedKeys, escapingSlashes: escapingSlashes) else { return false }
            }
            out.append(UInt8(ascii: "]"))
        case .object(let fields):
            out.append(UInt8(ascii: "{"))
            let keys = sortedKeys ? fields.keys.sorted(by: JSONKeyOrder.precedes) : Array(fields.keys)
            for (index, key) in keys.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                Self.write(key, to: &out, escapingSlashes: escapingSlashes)
                out.append(UInt8(ascii: ":"))
                guard fields[key]!.write(to: &out, sortedKeys: sortedKeys, escapingSlashes: escapingSlashes) else { return false }
            }
            out.append(UInt8(ascii: "}"))
        }
        return true
    }

    private static func write(_ string: String, to out: inout [UInt8], escapingSlashes: Bool) {
        out.append(UInt8(ascii: "\""))
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": out += Array("\\\"".utf8)
            case "\\": out += Array("\\\\".utf8)
            case "/": out += Array((escapingSlashes ? "\\/" : "/").utf8)
            case "\u{8}": out += Array("\\b".utf8)
            case "\u{C}": out += Array("\\f".utf8)
            case "\n": out += Array("\\n".utf8)
            case "\r": out += Array("\\r".utf8)
            case "\t": out += Array("\\t".utf8)
            case "\u{0}"..."\u{1F}":
                let hex = String(scalar.value, radix: 16)
                out += Array(("\\u" + String(repeating: "0", count: 4 - hex.count) + hex).utf8)
            default: out += Array(String(scalar).utf8)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
