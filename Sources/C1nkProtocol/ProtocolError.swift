/// Why an incoming frame was not a message we understand. Each case is logged
/// and the connection goes on: untrusted input never ends a session.
public enum ProtocolError: Error, Equatable, Sendable, CustomStringConvertible {
    case notJSON
    case notAnObject
    case missingType
    case unknownType(String)
    case missingField(type: String, field: String)
    case wrongFieldType(type: String, field: String)
    case oversized(bytes: Int, limit: Int)
    case binaryFrame(bytes: Int)

    public var description: String {
        switch self {
        case .notJSON: return "frame is not JSON"
        case .notAnObject: return "frame is JSON but not an object"
        case .missingType: return "message has no string field \"type\""
        case .unknownType(let type): return "unknown message type \"\(type)\""
        case .missingField(let type, let field): return "\"\(type)\" message lacks field \"\(field)\""
        case .wrongFieldType(let type, let field): return "\"\(type)\" message has field \"\(field)\" of the wrong type"
        case .oversized(let bytes, let limit): return "frame of \(bytes) bytes is over the \(limit)-byte limit"
        case .binaryFrame(let bytes): return "binary frame of \(bytes) bytes (the protocol is JSON text)"
        }
    }
}
