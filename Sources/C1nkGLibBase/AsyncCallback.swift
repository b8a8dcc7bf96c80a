import CGLib

/// Adapts Swift closures to the C callback types of GIO and libsoup that are
/// not signals: `GAsyncReadyCallback` and `SoupServerWebsocketCallback`.
enum AsyncCallback {
    typealias Ready = (_ source: gpointer?, _ result: OpaquePointer?) -> Void

    /// A `GAsyncReadyCallback` plus its user data; the closure runs once and is released.
    static func ready(_ body: @escaping Ready) -> (GAsyncReadyCallback, gpointer) {
        let box = Unmanaged.passRetained(ClosureBox<Ready>(body)).toOpaque()
        let callback: GAsyncReadyCallback = { source, result, data in
            let box = Unmanaged<ClosureBox<Ready>>.fromOpaque(data!).takeRetainedValue()
            box.value(source.map { UnsafeMutableRawPointer($0) }, result)
        }
        return (callback, box)
    }

    typealias WebSocketAccepted = (_ connection: OpaquePointer, _ peer: String) -> Void

    /// Registers `body` for WebSocket upgrades on `path` of a SoupServer; the
    /// closure lives as long as the handler.
    static func addWebSocketHandler(_ server: UnsafeMutablePointer<SoupServer>, path: String,
                                    _ body: @escaping WebSocketAccepted) {
        let box = Unmanaged.passRetained(ClosureBox<WebSocketAccepted>(body)).toOpaque()
        soup_server_add_websocket_handler(server, path, nil, nil, { _, message, _, connection, data in
            guard let connection, let data else { return }
            var peer = "?"
            if let message, let address = soup_server_message_get_remote_host(message) {
                peer = String(cString: address)
            }
            Unmanaged<ClosureBox<WebSocketAccepted>>.fromOpaque(data).takeUnretainedValue().value(connection, peer)
        }, box, { data in
            Unmanaged<ClosureBox<WebSocketAccepted>>.fromOpaque(data!).release()
        })
    }
}
