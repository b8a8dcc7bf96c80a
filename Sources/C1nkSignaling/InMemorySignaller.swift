import C1nkProtocol

/// A `Signaller` with no socket: what the answerer sends is kept in `sent`,
/// and the test plays the server by calling `connect()`, `receive(_:)` and
/// `drop(_:)`. Everything happens at once, on the caller's thread.
public final class InMemorySignaller: Signaller {
    public let serverURL: String
    public var onEvent: ((SignalEvent) -> Void)?
    /// Every message sent while connected, in order.
    public private(set) var sent: [ClientMessage] = []
    /// Messages sent while disconnected; they go out (into `sent`) on the next `connect()`.
    public private(set) var queued: [ClientMessage] = []
    public private(set) var isStarted = false
    public private(set) var isConnected = false
    /// Called with each message as it goes out (a test's server answers here).
    public var onSend: ((ClientMessage) -> Void)?

    public init(serverURL: String = "memory://c1nk") { self.serverURL = serverURL }

    public func start() { isStarted = true }

    public func stop() {
        isStarted = false
        isConnected = false
        queued.removeAll()
    }

    public func send(_ message: ClientMessage) {
        guard isConnected else { return queued.append(message) }
        sent.append(message)
        onSend?(message)
    }

    // MARK: - The test's side

    /// The socket opens: `connected`, then what was queued goes out (as with
    /// `SignalClient`: the app's rejoin first), then, unless a server of the
    /// test's answers `hello` itself, `ready` as if `hello-ok` came.
    public func connect(deviceId: String = "device-1", answeringHello: Bool = true) {
        isConnected = true
        onEvent?(.connected)
        let pending = queued
        queued.removeAll()
        pending.forEach(send)
        if answeringHello { receive(.helloOk(deviceId: deviceId)) }
    }

    /// A message from the server.
    public func receive(_ message: ServerMessage) {
        if case .helloOk(let deviceId) = message { onEvent?(.ready(deviceId: deviceId ?? "")) }
        onEvent?(.message(message))
    }

    /// The socket drops.
    public func drop(_ reason: String = "dropped") {
        guard isConnected else { return }
        isConnected = false
        onEvent?(.disconnected(reason: reason))
    }

    /// Forgets what was sent so far (a test reads what comes next).
    public func clearSent() { sent.removeAll() }
}
