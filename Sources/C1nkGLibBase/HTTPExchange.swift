import CGLib

/// One HTTP request as `HTTPServer` hands it out: everything read, nothing of
/// libsoup left in it.
public struct HTTPRequest: Sendable {
    public var method: String
    /// The path as sent (still percent-encoded): resolving it is the caller's.
    public var path: String
    public var query: String?
    /// Header names lowercased; a repeated header keeps its values joined with ", ".
    public var headers: [String: String]
    public var body: [UInt8]
    /// The peer's address ("127.0.0.1").
    public var peer: String

    public init(method: String, path: String, query: String? = nil, headers: [String: String] = [:],
                body: [UInt8] = [], peer: String = "127.0.0.1") {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
        self.peer = peer
    }

    public func header(_ name: String) -> String? { headers[name.lowercased()] }
}

/// The answer to an `HTTPRequest`.
public struct HTTPResponse: Sendable {
    public var status: Int
    public var headers: [(String, String)]
    public var body: [UInt8]

    public init(status: Int, headers: [(String, String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    public func header(_ name: String) -> String? {
        headers.first { $0.0.lowercased() == name.lowercased() }?.1
    }
}

/// A request in progress: answered at once (`respond`), later (the server
/// waits), or as a stream of chunks (`startStream`, server-sent events).
/// Lives on the main context.
public final class HTTPExchange {
    private var message: OpaquePointer?
    private var signals: [SignalConnection] = []
    private var paused = false
    private var streaming = false
    public private(set) var isAnswered = false
    /// The peer went away or the exchange ended; called once.
    public var onClosed: (() -> Void)?

    init(_ message: OpaquePointer) {
        self.message = message
        g_object_ref(gpointer(message))
        signals.append(SignalConnection.connect(gpointer(message), "finished") { [weak self] in self?.closed() })
        signals.append(SignalConnection.connect(gpointer(message), "disconnected") { [weak self] in self?.closed() })
    }

    public var isOpen: Bool { message != nil }

    public func respond(_ response: HTTPResponse) {
        guard let message, !isAnswered else { return }
        isAnswered = true
        let headers = soup_server_message_get_response_headers(message)
        for (name, value) in response.headers { soup_message_headers_replace(headers, name, value) }
        soup_server_message_set_status(message, guint(response.status), nil)
        let type = response.header("Content-Type")
        response.body.withUnsafeBytes { bytes in
            soup_server_message_set_response(message, type, SOUP_MEMORY_COPY,
                                             bytes.baseAddress?.assumingMemoryBound(to: CChar.self), gsize(bytes.count))
        }
        if paused { soup_server_message_unpause(message) }
    }

    /// Sends the file at `path` from disk, in chunks read off the main
    /// context (`HTTPFileStream`), with `headers`; `range` is the request's
    /// `Range` header. When the file cannot be opened, `failure(status)` is sent instead.
    public func respondWithFile(_ path: String, headers: [(String, String)], range: String?,
                                failure: @escaping (Int) -> HTTPResponse) {
        guard let message, !isAnswered else { return }
        isAnswered = true
        if !paused {
            soup_server_message_pause(message)
            paused = true
        }
        let method = soup_server_message_get_method(message).map { String(cString: $0) } ?? "GET"
        let file = HTTPFileStream(message, path: path, range: range, headers: headers, headOnly: method == "HEAD") { [weak self] status, reason in
            guard let self else { return }
            Log.app.debug("answered \(status) instead of a file: \(reason)")
            self.isAnswered = false
            self.respond(failure(status))
        }
        file.start()
    }

    /// Sends the status and headers now and keeps the response open (chunked) for `send`.
    public func startStream(status: Int, headers: [(String, String)]) {
        guard let message, !isAnswered else { return }
        isAnswered = true
        streaming = true
        let responseHeaders = soup_server_message_get_response_headers(message)
        soup_message_headers_set_encoding(responseHeaders, SOUP_ENCODING_CHUNKED)
        // Each chunk is freed once written: a stream open for days holds none of it.
        soup_message_body_set_accumulate(soup_server_message_get_response_body(message), 0)
        for (name, value) in headers { soup_message_headers_replace(responseHeaders, name, value) }
        soup_server_message_set_status(message, guint(status), nil)
        if paused { soup_server_message_unpause(message) }
    }

    /// One chunk of a stream; ignored once the peer is gone.
    public func send(_ text: String) {
        guard let message, streaming else { return }
        let body = soup_server_message_get_response_body(message)
        let bytes = Array(text.utf8)
        bytes.withUnsafeBytes { buffer in
            soup_message_body_append(body, SOUP_MEMORY_COPY, buffer.baseAddress, gsize(buffer.count))
        }
        soup_server_message_unpause(message)
    }

    /// Ends a stream (the peer sees the end of the response).
    public func finish() {
        guard let message, streaming else { return }
        soup_message_body_complete(soup_server_message_get_response_body(message))
        soup_server_message_unpause(message)
        streaming = false
    }

    /// Called by the server when the handler returned without answering.
    func pauseIfUnanswered() {
        guard let message, !isAnswered else { return }
        soup_server_message_pause(message)
        paused = true
    }

    private func closed() {
        guard let message else { return }
        self.message = nil
        signals.removeAll()
        g_object_unref(gpointer(message))
        let closed = onClosed
        onClosed = nil
        closed?()
    }

    deinit {
        signals.removeAll()
        if let message { g_object_unref(gpointer(message)) }
    }
}
