/// Which request bodies `HTTPServer` refuses before reading them: a
/// Content-Length above the maximum (413), or no length at all (chunked or
/// to the end of the connection: 411), so nobody makes it hold megabytes.
public enum HTTPBodyLimit {
    public enum Length: Sendable { case none, known(Int64), unknown }

    /// The status to refuse with, or nil to read the body.
    public static func refusal(_ length: Length, maximum: Int) -> Int? {
        switch length {
        case .none: return nil
        case .unknown: return 411
        case .known(let bytes): return bytes > Int64(maximum) ? 413 : nil
        }
    }
}
