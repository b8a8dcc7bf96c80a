import C1nkCall

/// What the answering core needs from a signaling connection: start it, tell
/// the server what the call intends, and hear what happens on it, in order,
/// on the main context. Each implementation speaks its server's dialect.
/// The libsoup `SignalClient` is the real one (the C1nk dialect of
/// `C1nkDialect.swift`); `InMemorySignaller` stands in for it in tests, so
/// the call flow runs with no socket.
public protocol Signaller: AnyObject {
    /// The server as the `connected` event names it (its URL).
    var serverURL: String { get }
    /// The one stream of events (`connected`, `disconnected`, every server
    /// message, …); set before `start()`.
    var onEvent: ((SignalEvent) -> Void)? { get set }
    /// Connects, and keeps reconnecting until `stop()`.
    func start()
    /// Closes the connection and stops reconnecting.
    func stop()
    /// Says `intent` to the server now, or once connected again (see
    /// `SignalClient` for what is queued).
    func send(_ intent: SignalIntent)
}
