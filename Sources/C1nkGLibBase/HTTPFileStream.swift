import CGLib

/// A file sent as an HTTP response, from disk, in chunks: opened, sized and
/// read with GIO's asynchronous calls (GIO's worker threads do the I/O, the
/// results come back to the main context), one chunk read only once the one
/// before was written to the peer, and the response body not accumulated:
/// memory stays flat whatever the file's size or the peer's speed. A
/// `Range` header gives 206 with `Content-Range` (416 outside the file);
/// every answer says `Accept-Ranges: bytes`.
final class HTTPFileStream {
    static let chunkBytes = 128 * 1024

    private let message: OpaquePointer
    private let path: String
    private let range: String?
    private let headers: [(String, String)]
    private let headOnly: Bool
    private let cancellable = g_cancellable_new()!
    private var stream: UnsafeMutablePointer<GFileInputStream>?
    private var remaining: Int64 = 0
    private var signals: [SignalConnection] = []
    /// Held from `start` to the end, so the stream outlives the handler that started it.
    private var alive: HTTPFileStream?
    private let failed: (Int, String) -> Void

    /// `failed` answers instead when the file cannot be opened (status, reason).
    init(_ message: OpaquePointer, path: String, range: String?, headers: [(String, String)], headOnly: Bool,
         failed: @escaping (Int, String) -> Void) {
        self.message = message
        self.path = path
        self.range = range
        self.headers = headers
        self.headOnly = headOnly
        self.failed = failed
    }

    func start() {
        alive = self
        signals.append(SignalConnection.connect(gpointer(message), "wrote-chunk") { [weak self] in self?.readNext() })
        signals.append(SignalConnection.connect(gpointer(message), "finished") { [weak self] in self?.end() })
        let file = g_file_new_for_path(path)!
        let (callback, data) = AsyncCallback.ready { [self] source, result in
            var error: UnsafeMutablePointer<GError>?
            let stream = g_file_read_finish(OpaquePointer(source), result, &error)
            guard let stream else {
                let reason = GLibError.take(error).message
                return fail(g_cancellable_is_cancelled(cancellable) != 0 ? 0 : 404, "cannot open \(path): \(reason)")
            }
            self.stream = stream
            querySize()
        }
        g_file_read_async(file, G_PRIORITY_DEFAULT, cancellable, callback, data)
        g_object_unref(gpointer(file))
    }

    private func querySize() {
        guard let stream else { return }
        let (callback, data) = AsyncCallback.ready { [self] _, result in
            var error: UnsafeMutablePointer<GError>?
            guard let info = g_file_input_stream_query_info_finish(stream, result, &error) else {
                return fail(500, "cannot read the size of \(path): \(GLibError.take(error).message)")
            }
            let size = Int64(g_file_info_get_size(info))
            g_object_unref(gpointer(info))
            send(size: size)
        }
        g_file_input_stream_query_info_async(stream, "standard::size", G_PRIORITY_DEFAULT, cancellable, callback, data)
    }

    private func send(size: Int64) {
        guard let stream, !isCancelled else { return end() }
        let responseHeaders = soup_server_message_get_response_headers(message)
        for (name, value) in headers { soup_message_headers_replace(responseHeaders, name, value) }
        soup_message_headers_replace(responseHeaders, "Accept-Ranges", "bytes")
        var first: Int64 = 0, length = size, status: guint = 200
        switch HTTPRange.resolve(range, size: size) {
        case .whole: break
        case let .part(start, last):
            first = start
            length = last - start + 1
            status = 206
            soup_message_headers_replace(responseHeaders, "Content-Range", "bytes \(start)-\(last)/\(size)")
        case .unsatisfiable:
            soup_message_headers_replace(responseHeaders, "Content-Range", "bytes */\(size)")
            soup_message_headers_set_content_length(responseHeaders, 0)
            soup_server_message_set_status(message, 416, nil)
            soup_message_body_complete(soup_server_message_get_response_body(message))
            soup_server_message_unpause(message)
            return end()
        }
        // A seek on a local file moves an offset: no disk access.
        if first > 0, g_seekable_seek(OpaquePointer(stream), goffset(first), G_SEEK_SET, cancellable, nil) == 0 {
            return fail(500, "cannot seek to \(first) in \(path)")
        }
        soup_message_headers_set_encoding(responseHeaders, SOUP_ENCODING_CONTENT_LENGTH)
        soup_message_headers_set_content_length(responseHeaders, goffset(length))
        soup_server_message_set_status(message, status, nil)
        let body = soup_server_message_get_response_body(message)
        soup_message_body_set_accumulate(body, 0)
        remaining = headOnly ? 0 : length
        if remaining == 0 {
            soup_message_body_complete(body)
            soup_server_message_unpause(message)
            return
        }
        readNext()
    }

    /// The next chunk, once the last one is written (or at the start).
    private func readNext() {
        // Past the last chunk libsoup ends a response of known length by itself.
        guard let stream, !isCancelled, remaining > 0 else { return }
        let count = Int(min(remaining, Int64(Self.chunkBytes)))
        let (callback, data) = AsyncCallback.ready { [self] _, result in
            var error: UnsafeMutablePointer<GError>?
            let bytes = g_input_stream_read_bytes_finish(UnsafeMutablePointer<GInputStream>(OpaquePointer(stream)), result, &error)
            guard let bytes, !isCancelled else {
                if let bytes { g_bytes_unref(bytes) }
                Log.app.debug("the read of \(path) stopped: \(error.map { GLibError.take($0).message } ?? "cancelled")")
                return cut()
            }
            let size = Int64(g_bytes_get_size(bytes))
            guard size > 0 else {
                g_bytes_unref(bytes)
                Log.app.warning("\(path) ended \(remaining) bytes early (truncated while it was sent)")
                return cut()
            }
            remaining -= size
            soup_message_body_append_bytes(soup_server_message_get_response_body(message), bytes)
            g_bytes_unref(bytes)
            soup_server_message_unpause(message)
        }
        g_input_stream_read_bytes_async(UnsafeMutablePointer<GInputStream>(OpaquePointer(stream)), gsize(count), G_PRIORITY_DEFAULT,
                                        cancellable, callback, data)
    }

    private var isCancelled: Bool { g_cancellable_is_cancelled(cancellable) != 0 }

    /// Not opened: answered by `failed` instead (0: the peer is gone).
    private func fail(_ status: Int, _ reason: String) {
        if status != 0 { failed(status, reason) }
        end()
    }

    /// The length was promised: a file that cannot go on ends the connection.
    private func cut() {
        if let socket = soup_server_message_get_socket(message) { HTTPConnectionGuard.cut(socket) }
        end()
    }

    /// The peer has it all, or went away: the reads stop, the file closes.
    private func end() {
        g_cancellable_cancel(cancellable)
        signals.removeAll()
        if let stream {
            self.stream = nil
            g_object_unref(gpointer(stream))
        }
        alive = nil
    }

    deinit { g_object_unref(gpointer(cancellable)) }
}
