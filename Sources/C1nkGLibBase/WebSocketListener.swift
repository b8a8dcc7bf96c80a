import CGLib

/// A WebSocket endpoint on libsoup's `SoupServer`, listening on loopback only
/// (IPv4), with TLS when given a certificate. Each accepted connection reaches
/// `onConnection` on the main context as a `WebSocketConnection`.
///
/// The local signaling server builds on this; nothing above the bridge sees
/// libsoup.
package final class WebSocketListener {
    /// The port it listens on (127.0.0.1).
    package private(set) var port: UInt16 = 0
    private var server: UnsafeMutablePointer<SoupServer>?

    /// - Parameters:
    ///   - port: 0 picks a free port.
    ///   - tlsCertificate: PEM files of a certificate and its key: `wss://` instead of `ws://`.
    ///   - onConnection: the new connection and the peer's address.
    package init(port: UInt16, path: String, tlsCertificate: (certificate: String, key: String)?,
                 onConnection: @escaping (WebSocketConnection, String) -> Void) throws {
        let server = c1nk_soup_server_new("c1nk-gst")!
        self.server = server
        AsyncCallback.addWebSocketHandler(server, path: path) { raw, host in
            onConnection(WebSocketConnection(raw), host)
        }
        var listenOptions = SOUP_SERVER_LISTEN_IPV4_ONLY.rawValue
        if let tls = tlsCertificate {
            let certificate = try GLibError.check { g_tls_certificate_new_from_files(tls.certificate, tls.key, $0) }
            c1nk_object_set_pointer(UnsafeMutableRawPointer(server), "tls-certificate", UnsafeMutableRawPointer(certificate))
            g_object_unref(UnsafeMutableRawPointer(certificate))
            listenOptions |= SOUP_SERVER_LISTEN_HTTPS.rawValue
        }
        do {
            try GLibError.check {
                soup_server_listen_local(server, guint(port), SoupServerListenOptions(listenOptions), $0)
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

    /// Stops listening; connections already handed out stay the caller's.
    package func stop() {
        guard let server else { return }
        soup_server_disconnect(server)
        g_object_unref(gpointer(server))
        self.server = nil
    }

    deinit { stop() }
}
