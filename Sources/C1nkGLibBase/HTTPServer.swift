import CGLib

/// An HTTP(S) server on libsoup's `SoupServer`, on the main context. Each
/// request reaches `handler` with its body read, as an `HTTPRequest` and the
/// `HTTPExchange` to answer it. Bodies above `maximumBodyBytes` (by their
/// Content-Length) are refused with 413 before they are read, and bodies
/// without a length (chunked uploads) with 411. Nothing above the bridge sees libsoup.
public final class HTTPServer {
    public enum Addresses: Sendable {
        /// 127.0.0.1 only.
        case loopback
        /// Every IPv4 interface.
        case all
    }

    public typealias Handler = (HTTPRequest, HTTPExchange) -> Void

    /// The port it listens on.
    public private(set) var port: UInt16 = 0
    public let maximumBodyBytes: Int
    private var server: UnsafeMutablePointer<SoupServer>?
    private let handler: Handler
    /// Requests refused before their body was read (413 and 411), for tests.
    public private(set) var refusedBodies = 0

    /// - Parameters:
    ///   - port: 0 picks a free port.
    ///   - tlsCertificate: PEM files of a certificate and its key: HTTPS instead of HTTP.
    public init(port: UInt16, addresses: Addresses, tlsCertificate: (certificate: String, key: String)?,
                maximumBodyBytes: Int, handler: @escaping Handler) throws {
        self.maximumBodyBytes = maximumBodyBytes
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

    /// Stops listening and drops every connection.
    public func stop() {
        guard let server else { return }
        soup_server_disconnect(server)
        g_object_unref(gpointer(server))
        self.server = nil
    }

    deinit { stop() }

    /// After the headers, before the body: a body too large or of unknown length is refused unread.
    private func early(_ message: OpaquePointer) {
        let headers = soup_server_message_get_request_headers(message)
        let encoding = soup_message_headers_get_encoding(headers)
        let length: HTTPBodyLimit.Length
        if encoding == SOUP_ENCODING_CHUNKED || encoding == SOUP_ENCODING_EOF {
            length = .unknown
        } else if encoding == SOUP_ENCODING_CONTENT_LENGTH {
            length = .known(Int64(soup_message_headers_get_content_length(headers)))
        } else {
            length = .none
        }
        guard let status = HTTPBodyLimit.refusal(length, maximum: maximumBodyBytes) else { return }
        refusedBodies += 1
        soup_message_headers_replace(soup_server_message_get_response_headers(message), "Connection", "close")
        soup_server_message_set_status(message, guint(status), nil)
    }

    private func handle(_ message: OpaquePointer) {
        // Refused in `early`: answered already.
        guard soup_server_message_get_status(message) == 0 else { return }
        let exchange = HTTPExchange(message)
        handler(Self.request(message), exchange)
        exchange.pauseIfUnanswered()
    }

    private static func request(_ message: OpaquePointer) -> HTTPRequest {
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
        if let raw = soup_server_message_get_request_body(message), raw.pointee.length > 0, let data = raw.pointee.data {
            body = Array(UnsafeRawBufferPointer(start: data, count: Int(raw.pointee.length)))
        }
        let peer = soup_server_message_get_remote_host(message).map { String(cString: $0) } ?? "?"
        return HTTPRequest(method: method, path: path, query: query, headers: headers, body: body, peer: peer)
    }
}
