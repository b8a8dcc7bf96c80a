import CGLib

/// An HTTP(S) server on libsoup's `SoupServer`, on the main context. Each
/// request reaches `handler` with its body read, as an `HTTPRequest` and the
/// `HTTPExchange` to answer it. Each route's body has a maximum
/// (`bodyLimit`): a Content-Length above it is refused with 413 before the
/// body is read, a chunked body with 413 as soon as it passes it
/// (`HTTPBodyWatch`). Nothing above the bridge sees libsoup.
public final class HTTPServer {
    public enum Addresses: Sendable {
        /// 127.0.0.1 only.
        case loopback
        /// Every IPv4 interface.
        case all
        /// One address of this machine ("192.168.1.20", "::1"): an IP address, never a name.
        case address(String)
    }

    public struct AddressError: Error, CustomStringConvertible {
        public let description: String
    }

    public typealias Handler = (HTTPRequest, HTTPExchange) -> Void
    /// The largest body a request of this method and path may carry, in bytes.
    public typealias BodyLimit = (_ method: String, _ path: String) -> Int

    /// The port it listens on.
    public private(set) var port: UInt16 = 0
    private let bodyLimit: BodyLimit
    private var server: UnsafeMutablePointer<SoupServer>?
    private let handler: Handler
    /// Requests whose body was refused (413 and 411), for tests.
    public private(set) var refusedBodies = 0
    /// Where its warnings go (the category of the layer that serves).
    public var log = Log.app
    private let connections: HTTPConnectionGuard
    private var requestStarted: SignalConnection?
    /// Connections open now, refused at the caps, and closed past a deadline.
    public var connectionCount: Int { connections.table.count }
    public var refusedConnections: Int { connections.refused }
    public var timedOutConnections: Int { connections.timedOut }
    /// The bodies being read, by message.
    private var bodies: [OpaquePointer: (watch: HTTPBodyWatch, finished: SignalConnection)] = [:]

    /// - Parameters:
    ///   - port: 0 picks a free port.
    ///   - tlsCertificate: PEM files of a certificate and its key: HTTPS instead of HTTP.
    ///   - limits: the connections' caps and deadlines (`HTTPConnectionTable`).
    public init(port: UInt16, addresses: Addresses, tlsCertificate: (certificate: String, key: String)?,
                limits: HTTPConnectionTable.Limits = .init(), bodyLimit: @escaping BodyLimit, handler: @escaping Handler) throws {
        if case .address(let text) = addresses, !Self.isIPAddress(text) {
            throw AddressError(description: "'\(text)' is not an IP address (such as 192.168.1.20 or ::1)")
        }
        self.bodyLimit = bodyLimit
        var log: () -> Log = { Log.app }
        connections = HTTPConnectionGuard(limits: limits, log: { log() })
        self.handler = handler
        let server = c1nk_soup_server_new("c1nk-gst")!
        self.server = server
        var listenOptions = SOUP_SERVER_LISTEN_IPV4_ONLY.rawValue
        if let tls = tlsCertificate {
            do {
                let certificate = try GLibError.check { g_tls_certificate_new_from_files(tls.certificate, tls.key, $0) }
                c1nk_object_set_pointer(UnsafeMutableRawPointer(server), "tls-certificate", UnsafeMutableRawPointer(certificate))
                g_object_unref(UnsafeMutableRawPointer(certificate))
            } catch {
                stop()
                throw error
            }
            listenOptions |= SOUP_SERVER_LISTEN_HTTPS.rawValue
        }
        log = { [weak self] in self?.log ?? Log.app }
        requestStarted = SignalConnection.connect(gpointer(server), "request-started") { [weak self] (message: gpointer?) in
            guard let message else { return }
            self?.connections.requestStarted(OpaquePointer(message))
        }
        let box = Unmanaged.passUnretained(self).toOpaque()
        soup_server_add_early_handler(server, nil, { _, message, _, _, data in
            guard let message, let data else { return }
            Unmanaged<HTTPServer>.fromOpaque(data).takeUnretainedValue().early(message)
        }, box, nil)
        soup_server_add_handler(server, nil, { _, message, _, _, data in
            guard let message, let data else { return }
            Unmanaged<HTTPServer>.fromOpaque(data).takeUnretainedValue().handle(message)
        }, box, nil)
        do {
            try GLibError.check { error -> gboolean in
                switch addresses {
                case .loopback: return soup_server_listen_local(server, guint(port), SoupServerListenOptions(listenOptions), error)
                case .all: return soup_server_listen_all(server, guint(port), SoupServerListenOptions(listenOptions), error)
                case .address(let text):
                    guard let inet = g_inet_address_new_from_string(text) else { return 0 }
                    defer { g_object_unref(gpointer(inet)) }
                    let socketAddress = g_inet_socket_address_new(inet, guint16(port))!
                    defer { g_object_unref(gpointer(socketAddress)) }
                    let httpsOnly = listenOptions & SOUP_SERVER_LISTEN_HTTPS.rawValue
                    return soup_server_listen(server, socketAddress, SoupServerListenOptions(httpsOnly), error)
                }
            }
        } catch {
            stop()
            throw error
        }
        if let uris = soup_server_get_uris(server) {
            if let first = uris.pointee.data { self.port = UInt16(g_uri_get_port(OpaquePointer(first))) }
            g_slist_free_full(uris, { g_uri_unref(OpaquePointer($0)) })
        }
    }

    /// Whether `text` is an IPv4 or IPv6 address (no name: nothing is looked up).
    public static func isIPAddress(_ text: String) -> Bool {
        guard let inet = g_inet_address_new_from_string(text) else { return false }
        g_object_unref(gpointer(inet))
        return true
    }

    /// Stops listening and drops every connection.
    public func stop() {
        guard let server else { return }
        bodies.values.forEach { $0.watch.end() }
        bodies.removeAll()
        requestStarted = nil
        connections.stop()
        soup_server_disconnect(server)
        g_object_unref(gpointer(server))
        self.server = nil
    }

    deinit { stop() }

    /// After the headers, before the body: a body too large is refused
    /// unread, a chunked one is watched as it comes.
    private func early(_ message: OpaquePointer) {
        let headers = soup_server_message_get_request_headers(message)
        let encoding = soup_message_headers_get_encoding(headers)
        let length: HTTPBodyLimit.Length
        if encoding == SOUP_ENCODING_CHUNKED {
            length = .chunked
        } else if encoding == SOUP_ENCODING_EOF {
            length = .unknown
        } else if encoding == SOUP_ENCODING_CONTENT_LENGTH {
            length = .known(Int64(soup_message_headers_get_content_length(headers)))
        } else {
            length = .none
        }
        if case .none = length { return }
        if case .known(0) = length { return }
        let request = Self.request(message, withBody: false)
        let maximum = bodyLimit(request.method, request.path)
        let watch = HTTPBodyWatch(message, maximum: maximum, log: log) { [weak self] in self?.refusedBodies += 1 }
        let finished = SignalConnection.connect(gpointer(message), "finished") { [weak self] in
            self?.bodies.removeValue(forKey: message)?.watch.end()
        }
        bodies[message] = (watch, finished)
        if let status = HTTPBodyLimit.refusal(length, maximum: maximum) {
            log.warning("refused a \(request.method) \(request.path) body from \(request.peer): \(status == 413 ? "over \(maximum) bytes" : "no length") (\(status))")
            watch.refuse(status)
        }
    }

    private func handle(_ message: OpaquePointer) {
        // Refused in `early`: answered already.
        guard soup_server_message_get_status(message) == 0 else { return }
        let exchange = HTTPExchange(message)
        handler(Self.request(message, withBody: true), exchange)
        exchange.pauseIfUnanswered()
    }

    private static func request(_ message: OpaquePointer, withBody: Bool) -> HTTPRequest {
        let method = soup_server_message_get_method(message).map { String(cString: $0) } ?? "GET"
        var path = "/"
        var query: String?
        if let uri = soup_server_message_get_uri(message) {
            if let raw = g_uri_get_path(uri) { path = String(cString: raw) }
            if let raw = g_uri_get_query(uri) { query = String(cString: raw) }
        }
        var headers: [String: String] = [:]
        var iterator = SoupMessageHeadersIter()
        soup_message_headers_iter_init(&iterator, soup_server_message_get_request_headers(message))
        var name: UnsafePointer<CChar>?
        var value: UnsafePointer<CChar>?
        while soup_message_headers_iter_next(&iterator, &name, &value) != 0 {
            guard let name, let value else { continue }
            let key = String(cString: name).lowercased()
            let text = String(cString: value)
            headers[key] = headers[key].map { $0 + ", " + text } ?? text
        }
        var body: [UInt8] = []
        if withBody, let raw = soup_server_message_get_request_body(message), raw.pointee.length > 0, let data = raw.pointee.data {
            body = Array(UnsafeRawBufferPointer(start: data, count: Int(raw.pointee.length)))
        }
        let peer = soup_server_message_get_remote_host(message).map { String(cString: $0) } ?? "?"
        return HTTPRequest(method: method, path: path, query: query, headers: headers, body: body, peer: peer)
    }
}
