import C1nkCall
import C1nkProtocol

/// A `Signaller` with no socket and no dialect: the intents the answerer
/// sends are kept in `sent`, as intents, and the test plays the server by
/// calling `connect()`, `receive(_:)` and `drop(_:)` (a test that needs the
/// wire messages puts them in the C1nk dialect, `ClientMessage(intent)`).
/// Everything happens at once, on the caller's thread.
public final class InMemorySignaller: Signaller {
    public let serverURL: String
    public var onEvent: ((SignalEvent) -> Void)?
    /// Every intent sent while connected, in order.
    public private(set) var sent: [SignalIntent] = []
    /// Intents sent while disconnected; they go out (into `sent`) on the next `connect()`.
    public private(set) var queued: [SignalIntent] = []
    public private(set) var isStarted = false
    public private(set) var isConnected = false
    /// Called with each intent as it goes out (a test's server answers here).
    public var onSend: ((SignalIntent) -> Void)?

    public init(serverURL: String = "memory://c1nk") { self.serverURL = serverURL }

    public func start() { isStarted = true }

    public func stop() {
        isStarted = false
        isConnected = false
        queued.removeAll()
    }

    public func send(_ intent: SignalIntent) {
        guard isConnected else { return queued.append(intent) }
        sent.append(intent)
        onSend?(intent)
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
