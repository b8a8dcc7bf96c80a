import CGLib

/// One request's body as it arrives, for `HTTPServer`: a chunked body
/// counted chunk by chunk and refused (413) when it passes the route's
/// maximum, and a refused body dropped as it comes (never held), the
/// connection cut once `HTTPBodyLimit.discardBytes` of it were dropped.
final class HTTPBodyWatch {
    private let message: OpaquePointer
    private let maximum: Int
    private var received = 0
    private var dropped = 0
    private(set) var refused = false
    private var signals: [SignalConnection] = []
    private let onRefused: () -> Void
    private let log: Log

    init(_ message: OpaquePointer, maximum: Int, log: Log, onRefused: @escaping () -> Void) {
        self.message = message
        self.log = log
        self.maximum = maximum
        self.onRefused = onRefused
        signals.append(SignalConnection.connect(gpointer(message), "got-chunk") { [weak self] chunk in
            self?.gotChunk(chunk.map { Int(g_bytes_get_size(OpaquePointer($0))) } ?? 0)
        })
    }

    /// Refused at the headers (or past the maximum): nothing more of the body is kept.
    func refuse(_ status: Int) {
        guard !refused else { return }
        refused = true
        let body = soup_server_message_get_request_body(message)
        soup_message_body_set_accumulate(body, 0)
        soup_message_body_truncate(body)
        let headers = soup_server_message_get_response_headers(message)
        soup_message_headers_replace(headers, "Connection", "close")
        soup_server_message_set_status(message, guint(status), nil)
        onRefused()
    }

    /// The message is done: its signal handlers go (they hold it).
    func end() { signals.removeAll() }

    private func gotChunk(_ size: Int) {
        if refused {
            dropped += size
            if dropped > HTTPBodyLimit.discardBytes, let socket = soup_server_message_get_socket(message) {
                log.warning("cut a connection from \(peer) that kept sending a refused body (\(dropped) bytes dropped)")
                end()
                HTTPConnectionGuard.cut(socket)
            }
            return
        }
        received += size
        if HTTPBodyLimit.chunkedOver(received: received, maximum: maximum) {
            log.warning("refused a chunked body from \(peer) past \(maximum) bytes (413)")
            refuse(413)
        }
    }

    private var peer: String { soup_server_message_get_remote_host(message).map { String(cString: $0) } ?? "?" }
}
