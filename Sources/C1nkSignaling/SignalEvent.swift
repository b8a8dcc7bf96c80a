import C1nkProtocol

/// What the signaling client tells the rest of the library, in order, on the
/// main context. This is the one stream the call layer listens to.
public enum SignalEvent: Equatable, Sendable {
    /// The socket is open and `hello` went out (queued messages follow it).
    case connected
    /// The server acknowledged `hello`; the connection counts as healthy.
    case ready(deviceId: String)
    /// The socket closed or was dropped; a reconnect is scheduled unless stopped.
    case disconnected(reason: String)
    /// A connection attempt failed; the next one starts in `retryIn` seconds.
    case connectFailed(reason: String, retryIn: Double)
    /// The server gave this device a different id; it has been stored.
    case deviceIdAssigned(String)
    case message(ServerMessage)
    /// A frame the server sent was refused; the connection goes on.
    case protocolError(ProtocolError)
}
