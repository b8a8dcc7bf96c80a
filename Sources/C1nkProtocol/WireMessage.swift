import FoundationEssentials

/// A message of the C1nk protocols: a JSON object whose `type` names it.
/// Conformers map their cases to and from a type string and a payload; the
/// extension below makes every dialect `Codable` the same way, and
/// `WireCodec` reports malformed input the same way for all of them.
public protocol WireMessage: Codable, Sendable {
    /// The value of the `type` field.
    var type: String { get }
    /// Encodes the fields other than `type`.
    func encodePayload(to container: inout KeyedEncodingContainer<WireKey>) throws
    /// Decodes the message of `type` from its fields; returns nil for an unknown type.
    static func decode(type: String, from container: KeyedDecodingContainer<WireKey>) throws -> Self?
}

extension WireMessage {
    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: WireKey.self)
        try container.encode(type, forKey: .type)
        try encodePayload(to: &container)
    }

    /// Throws `ProtocolError.missingType` / `.unknownType`, or the
    /// `DecodingError` of a missing or mistyped field.
    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: WireKey.self)
        guard let type = try? container.decodeIfPresent(String.self, forKey: .type) else {
            throw ProtocolError.missingType
        }
        guard let message = try Self.decode(type: type, from: container) else {
            throw ProtocolError.unknownType(type)
        }
        self = message
    }
}

/// A JSON object key; any string.
public struct WireKey: CodingKey, Hashable {
    public var stringValue: String
    public var intValue: Int? { nil }
    public init(stringValue: String) { self.stringValue = stringValue }
    public init?(intValue: Int) { return nil }
    public static let type = WireKey(stringValue: "type")
}

extension WireKey: ExpressibleByStringLiteral {
    public init(stringLiteral value: String) { self.init(stringValue: value) }
}

/// Encodes and decodes protocol messages, enforcing the frame size limit.
public enum WireCodec {
    /// Frames larger than this are refused with `.oversized` (the protocol's
    /// largest message is an SDP of a few KiB).
    public static let maximumFrameBytes = 256 * 1024

    public static func encode<M: WireMessage>(_ message: M) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding our own value types with string/int fields cannot fail.
        let data = try! encoder.encode(message)
        return String(decoding: data, as: UTF8.self)
    }

    public static func decode<M: WireMessage>(_ type: M.Type, from text: String) -> Result<M, ProtocolError> {
        let data = Data(text.utf8)
        if data.count > maximumFrameBytes {
            return .failure(.oversized(bytes: data.count, limit: maximumFrameBytes))
        }
        do {
            return .success(try JSONDecoder().decode(M.self, from: data))
        } catch let error as ProtocolError {
            return .failure(error)
        } catch let DecodingError.dataCorrupted(context) where context.codingPath.isEmpty {
            return .failure(.notJSON)
        } catch DecodingError.typeMismatch(_, let context) where context.codingPath.isEmpty {
            return .failure(.notAnObject)
        } catch let error as DecodingError {
            return .failure(protocolError(for: error, type: messageType(in: data)))
        } catch {
            return .failure(.notJSON)
        }
    }

    /// The `type` of a frame that decoded badly, for the error text.
    private static func messageType(in data: Data) -> String {
        JSONValue(text: data)?.objectValue?["type"]?.stringValue ?? "?"
    }

    private static func protocolError(for error: DecodingError, type: String) -> ProtocolError {
        func path(_ keys: [CodingKey]) -> String { keys.map(\.stringValue).joined(separator: ".") }
        switch error {
        case .keyNotFound(let key, let context):
            return .missingField(type: type, field: path(context.codingPath + [key]))
        case .valueNotFound(_, let context):
            return .missingField(type: type, field: path(context.codingPath))
        case .typeMismatch(_, let context), .dataCorrupted(let context):
            return .wrongFieldType(type: type, field: path(context.codingPath))
        @unknown default:
            return .wrongFieldType(type: type, field: "?")
        }
    }
}

extension KeyedDecodingContainer where K == WireKey {
    /// A required string field.
    func string(_ key: String) throws -> String { try decode(String.self, forKey: WireKey(stringValue: key)) }
    /// An optional string field (absent or null).
    func optionalString(_ key: String) throws -> String? { try decodeIfPresent(String.self, forKey: WireKey(stringValue: key)) }
    func candidate() throws -> IceCandidate { try decode(IceCandidate.self, forKey: "candidate") }
}
