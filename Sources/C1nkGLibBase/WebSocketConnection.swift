import CGLib
import FoundationEssentials

/// One open WebSocket (client or server side) over libsoup, delivering text
/// frames, refused frames and the close on the main context.
public final class WebSocketConnection {
    /// libsoup closes the socket on frames above this; smaller frames above
    /// `WireCodec.maximumFrameBytes` are refused one by one and the socket stays.
    static let transportFrameLimit: guint64 = 4 * 1024 * 1024

    let raw: OpaquePointer
    private var signals: [SignalConnection] = []
    private var closedReported = false

    /// A text frame arrived.
    public var onText: ((String) -> Void)?
    /// A binary frame arrived (the protocol has none); its size.
    public var onBinary: ((Int) -> Void)?
    /// The socket closed; the reason, for logs. Called once.
    public var onClosed: ((String) -> Void)?

    /// Takes a reference on `raw` and listens to it.
    init(_ raw: OpaquePointer) {
        self.raw = raw
        g_object_ref(gpointer(raw))
        soup_websocket_connection_set_max_incoming_payload_size(raw, Self.transportFrameLimit)
        var lastError: String?
        signals.append(SignalConnection.connect(gpointer(raw), "message") { [weak self] (kind: Int32, bytes: gpointer?) in
            guard let self, let bytes else { return }
            let gbytes = OpaquePointer(bytes)
            var size: gsize = 0
            let data = g_bytes_get_data(gbytes, &size)
            if kind == Int32(SOUP_WEBSOCKET_DATA_TEXT.rawValue) {
                let buffer = UnsafeRawBufferPointer(start: data, count: Int(size))
                self.onText?(String(decoding: buffer, as: UTF8.self))
            } else {
                self.onBinary?(Int(size))
            }
        })
        signals.append(SignalConnection.connect(gpointer(raw), "error") { (error: gpointer?) in
            if let error {
                let gerror = error.assumingMemoryBound(to: GError.self)
                lastError = gerror.pointee.message.map { String(cString: $0) }
            }
        })
        signals.append(SignalConnection.connect(gpointer(raw), "closed") { [weak self] in
            guard let self else { return }
            let code = soup_websocket_connection_get_close_code(self.raw)
            let reason = lastError ?? (code == 0 ? "connection lost" : "closed with code \(code)")
            self.reportClosed(reason)
        })
    }

    public var isOpen: Bool {
        soup_websocket_connection_get_state(raw) == SOUP_WEBSOCKET_STATE_OPEN
    }

    /// Sends a text frame; ignored when the socket is no longer open.
    public func send(_ text: String) {
        guard isOpen else { return }
        soup_websocket_connection_send_text(raw, text)
    }

    /// Sends a binary frame (tests use it to check that peers refuse them).
    public func sendBinary(_ bytes: [UInt8]) {
        guard isOpen else { return }
        bytes.withUnsafeBytes { soup_websocket_connection_send_binary(raw, $0.baseAddress, gsize($0.count)) }
    }

    /// Starts a clean close; `onClosed` follows.
    public func close(reason: String = "") {
        if isOpen { soup_websocket_connection_close(raw, gushort(SOUP_WEBSOCKET_CLOSE_NORMAL.rawValue), reason) }
    }

    /// Drops the socket without a close handshake, as a dead network would.
    public func abort() {
        let stream = soup_websocket_connection_get_io_stream(raw)
        if let stream { g_io_stream_close(stream, nil, nil) }
        reportClosed("aborted")
    }

    private func reportClosed(_ reason: String) {
        guard !closedReported else { return }
        closedReported = true
        onClosed?(reason)
    }

    deinit {
        signals.forEach { $0.disconnect() }
        if isOpen { soup_websocket_connection_close(raw, gushort(SOUP_WEBSOCKET_CLOSE_GOING_AWAY.rawValue), nil) }
        g_object_unref(gpointer(raw))
    }
}

/// Opens client WebSockets with a libsoup session.
package final class WebSocketConnector {
    private let session: UnsafeMutablePointer<SoupSession>
    private var cancellable: UnsafeMutablePointer<GCancellable>?

    /// - Parameter trustedCAFile: a PEM file of extra authorities to trust for
    ///   `wss://` (a self-hosted server with its own CA). Certificates are
    ///   always validated; without it the system's authorities apply.
    /// - Parameter proxies: where `ws://` and `wss://` go through a proxy
    ///   (`ProxyFromEnvironment`); this process's environment by default.
    package init(trustedCAFile: String?, proxies: ProxyFromEnvironment = ProxyFromEnvironment(ProcessInfo.processInfo.environment)) throws {
        session = soup_session_new()!
        let resolver = proxies.resolver()
        soup_session_set_proxy_resolver(session, resolver)
        if let resolver { g_object_unref(gpointer(resolver)) }
        if let trustedCAFile {
            let database = try GLibError.check { g_tls_file_database_new(trustedCAFile, $0) }
            soup_session_set_tls_database(session, database)
            g_object_unref(database.map { gpointer($0) })
        }
    }

    /// Connects to `url`; `completion` runs on the main context.
    package func connect(to url: String, completion: @escaping (Result<WebSocketConnection, GLibError>) -> Void) {
        cancel()
        guard let message = soup_message_new("GET", url) else {
            completion(.failure(GLibError(domain: "c1nk", code: 0, message: "not a valid WebSocket URL: \(url)")))
            return
        }
        let cancellable = g_cancellable_new()
        self.cancellable = cancellable
        let (callback, data) = AsyncCallback.ready { [weak self] source, result in
            var error: UnsafeMutablePointer<GError>? = nil
            let connection = soup_session_websocket_connect_finish(source?.assumingMemoryBound(to: SoupSession.self), result, &error)
            if let self, self.cancellable == cancellable { self.cancellable = nil }
            g_object_unref(gpointer(cancellable))
            if let connection {
                let wrapped = WebSocketConnection(connection)
                g_object_unref(gpointer(connection))
                completion(.success(wrapped))
            } else {
                completion(.failure(GLibError.take(error)))
            }
        }
        soup_session_websocket_connect_async(session, message, nil, nil, G_PRIORITY_DEFAULT, cancellable, callback, data)
        g_object_unref(gpointer(message))
    }

    /// Abandons a connection attempt in progress.
    package func cancel() {
        if let cancellable { g_cancellable_cancel(cancellable); self.cancellable = nil }
    }

    deinit {
        cancel()
        g_object_unref(gpointer(session))
    }
}
