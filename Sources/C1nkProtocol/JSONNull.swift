/// JSON's null among Swift's own values (`JSONValue.any`, `JSONValue.object(in:)`):
/// the answerer does not link Foundation, to keep ICU out of its memory, so it has no `NSNull`.
public struct JSONNull: Sendable, Hashable {
    public init() {}
}
