/// Which request bodies `HTTPServer` refuses, and when: a Content-Length
/// above the route's maximum before a byte of it is read (413), a chunked
/// body as soon as its chunks pass the maximum (413), a body to the end of
/// the connection always (411); so nobody makes the server hold megabytes.
public enum HTTPBodyLimit {
    public enum Length: Sendable {
        case none, known(Int64)
        /// Chunked: its length is known only as it arrives.
        case chunked
        /// To the end of the connection: not a request body HTTP/1.1 allows.
        case unknown
    }

    /// After a refusal the rest of the body is read and dropped up to this
    /// many bytes (so the client can read the 413), then the connection is cut.
    public static let discardBytes = 1024 * 1024

    /// The status to refuse with at the headers, or nil to read the body.
    public static func refusal(_ length: Length, maximum: Int) -> Int? {
        switch length {
        case .none, .chunked: return nil
        case .unknown: return 411
        case .known(let bytes): return bytes > Int64(maximum) ? 413 : nil
        }
    }

    /// Whether a chunked body of `received` bytes so far is over `maximum` (413).
    public static func chunkedOver(received: Int, maximum: Int) -> Bool { received > maximum }
}
