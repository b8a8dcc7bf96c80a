import C1nkCall
import C1nkGLibBase
import C1nkProtocol

/// The app's connection to the C1nk signaling server, in its dialect (each
/// call intent as the `ClientMessage` of `C1nkDialect.swift`).
///
/// Says `hello` after every connect, keeps the link alive with `ping` and a
/// `pong` watchdog, reconnects with exponential backoff, and queues what the
/// app sends while the socket is down (a `join` may precede the first
/// connect). Lives on the main context; events arrive through `onEvent`.
///
/// After a reconnect the order on the wire is: `hello`; what the app sends
/// while handling `.connected` (its rejoin `join`); the queued messages; then
/// every `accept`, `reject` or `hangup` that went out on the dead socket with
/// no proof of arrival. The proof is a `pong`: the client sends a `ping` right
/// after each of those, and the server answers in order, so a `pong` confirms
/// everything sent before its `ping`.
///
/// The answerer's `Signaller` on a real server.
public final class SignalClient: Signaller {
    public struct Configuration {
        /// `ws://` or `wss://` URL of the server.
        public var url: String
        public var deviceId: String
        /// Linux has no VoIP push token: empty.
        public var voipToken: String = ""
        public var bundleId: String = "eu.c1nk.app"
        /// Extra certificate authorities (PEM) to trust for `wss://`.
        public var trustedCAFile: String?
        public var timing = SignalTiming()

        public init(url: String, deviceId: String) {
            self.url = url
            self.deviceId = deviceId
        }
    }

    public private(set) var configuration: Configuration
    public var serverURL: String { configuration.url }
    /// The one stream of events; set it before `start()`.
    public var onEvent: ((SignalEvent) -> Void)?
    /// Called when the server assigns a new device id, so it can be persisted.
    public var onDeviceIdAssigned: ((String) -> Void)?

    private let log = Log.signaling
    private let connector: WebSocketConnector
    private var socket: MessageSocket<ServerMessage>?
    private var queue: [ClientMessage] = []
    /// Messages that must not be lost, sent on the current (or a dead) socket
    /// and not yet confirmed; each is confirmed by the pong to ping `ping`.
    private var unconfirmed: [(message: ClientMessage, ping: Int)] = []
    private var pingsSent = 0
    private var pongsReceived = 0
    /// `afterRoundTrip` callbacks, each waiting for the pong to its ping.
    private var roundTrips: [(ping: Int, done: () -> Void)] = []
    private var failures = 0
    private var running = false
    private var reconnectTimer: GLibTimer?
    private var pingTimer: GLibTimer?
    private var watchdog: GLibTimer?

    public init(_ configuration: Configuration) throws {
        self.configuration = configuration
        connector = try WebSocketConnector(trustedCAFile: configuration.trustedCAFile)
    }

    /// Whether the socket is open (messages go out at once rather than queue).
    public var isConnected: Bool { socket?.isOpen ?? false }

    /// Messages waiting for the next connection.
    public var queuedCount: Int { queue.count }

    /// `accept`, `reject` and `hangup` messages sent but not yet confirmed by a `pong`.
    public var unconfirmedCount: Int { unconfirmed.count }

    public func start() {
        guard !running else { return }
        running = true
        connect()
    }

    /// Closes the connection and stops reconnecting. Queued messages are dropped.
    public func stop() {
        running = false
        reconnectTimer = nil
        connector.cancel()
        stopKeepalive()
        socket?.connection.close(reason: "client stopping")
        socket = nil
        queue.removeAll()
        unconfirmed.removeAll()
    }

    /// Says `intent` in the C1nk dialect: now if connected, otherwise once
    /// connected again, after the next `hello`.
    public func send(_ intent: SignalIntent) {
        send(message: ClientMessage(intent))
    }

    /// Sends now if connected, otherwise queues until after the next `hello`.
    /// What the app says comes through here (an intent, or a message that is
    /// no call's such as `register-token`); the client's own `hello` and
    /// `ping` go straight to the socket.
    func send(message: ClientMessage) {
        if let socket, socket.isOpen {
            transmit(message, on: socket)
        } else {
            log.debug("queued \(message.type) while disconnected")
            queue.append(message)
        }
    }

    /// Whether losing `message` with a dying socket would leave the call in
    /// a state the user did not choose. (`open-door` is the call's to repeat:
    /// only while its request is still fresh.)
    private static func mustArrive(_ message: ClientMessage) -> Bool {
        switch message {
        case .accept, .reject, .hangup: return true
        default: return false
        }
    }

    private func transmit(_ message: ClientMessage, on socket: MessageSocket<ServerMessage>) {
        socket.send(message)
        if Self.mustArrive(message) {
            unconfirmed.append((message, pingsSent + 1))
            // A server that never answers pings must not make this grow without end.
            if unconfirmed.count > 16 { unconfirmed.removeFirst(unconfirmed.count - 16) }
            sendPing(on: socket)
        }
    }

    private func sendPing(on socket: MessageSocket<ServerMessage>) {
        pingsSent += 1
        socket.send(ClientMessage.ping)
    }

    /// Calls `done` once the server has answered a ping sent now, that is,
    /// once it has read everything sent before (a barrier for tests and
    /// diagnostics). Dropped, not called, if the socket closes first.
    public func afterRoundTrip(_ done: @escaping () -> Void) {
        guard let socket, socket.isOpen else { return }
        roundTrips.append((pingsSent + 1, done))
        sendPing(on: socket)
    }

    // MARK: - Connection cycle

    private func connect() {
        guard running else { return }
        log.info("connecting to \(configuration.url)")
        connector.connect(to: configuration.url) { [weak self] result in
            guard let self, self.running else { return }
            switch result {
            case .success(let connection): self.opened(connection)
            case .failure(let error): self.scheduleReconnect(after: error.message, connected: false)
            }
        }
    }

    private func opened(_ connection: WebSocketConnection) {
        let socket = MessageSocket<ServerMessage>(connection, log: log)
        self.socket = socket
        socket.onMessage = { [weak self] message in self?.received(message) }
        socket.onProtocolError = { [weak self] error in self?.onEvent?(.protocolError(error)) }
        socket.onClosed = { [weak self, weak socket] reason in
            guard let self, let socket, self.socket === socket else { return }
            self.socket = nil
            self.stopKeepalive()
            self.log.info("disconnected: \(reason)")
            self.onEvent?(.disconnected(reason: reason))
            self.scheduleReconnect(after: reason, connected: true)
        }
        log.info("connected to \(configuration.url)")
        pingsSent = 0
        pongsReceived = 0
        roundTrips.removeAll()
        socket.send(ClientMessage.hello(deviceId: configuration.deviceId, voipToken: configuration.voipToken,
                                        bundleId: configuration.bundleId))
        startKeepalive()
        // The app rejoins its call here, before anything queued goes out.
        onEvent?(.connected)
        guard self.socket === socket, socket.isOpen else { return }
        let pending = queue
        queue.removeAll()
        let resend = unconfirmed.map(\.message)
        unconfirmed.removeAll()
        if !resend.isEmpty { log.info("sending again what the dropped socket may have lost: \(resend.map(\.type))") }
        (pending + resend).forEach { transmit($0, on: socket) }
    }

    private func scheduleReconnect(after reason: String, connected: Bool) {
        guard running else { return }
        let delay = configuration.timing.backoff(afterFailures: failures)
        failures += 1
        if !connected {
            log.info("connection failed (\(reason)); retrying in \(delay) s")
            onEvent?(.connectFailed(reason: reason, retryIn: delay))
        }
        reconnectTimer = GLibTimer(after: delay) { [weak self] in self?.connect() }
    }

    private func received(_ message: ServerMessage) {
        switch message {
        case .pong:
            pongsReceived += 1
            unconfirmed.removeAll { $0.ping <= pongsReceived }
            armWatchdog()
            let due = roundTrips.filter { $0.ping <= pongsReceived }
            roundTrips.removeAll { $0.ping <= pongsReceived }
            due.forEach { $0.done() }
        case .helloOk(let deviceId):
            // A healthy connection: the next drop starts the backoff afresh.
            failures = 0
            if let deviceId, !deviceId.isEmpty, let refusal = ServerIdentifier.refusal(deviceId) {
                // It would become a file's content, an MQTT topic and a page's text: kept as data, so not kept.
                log.warning("the server assigned the device id \"\(ServerIdentifier.printable(deviceId))\", which is not a valid id (\(refusal)); keeping \(configuration.deviceId)")
            } else if let deviceId, !deviceId.isEmpty, deviceId != configuration.deviceId {
                log.info("server assigned device id \(deviceId)")
                configuration.deviceId = deviceId
                onDeviceIdAssigned?(deviceId)
                onEvent?(.deviceIdAssigned(deviceId))
            }
            onEvent?(.ready(deviceId: configuration.deviceId))
        case .welcome:
            log.info("server says welcome")
        case .error(let text, _):
            log.warning("server error: \(text)")
        default:
            break
        }
        onEvent?(.message(message))
    }

    // MARK: - Keepalive

    private func startKeepalive() {
        pingTimer = GLibTimer(after: configuration.timing.pingInterval, repeats: true) { [weak self] in
            guard let self, let socket = self.socket else { return }
            self.sendPing(on: socket)
        }
        armWatchdog()
    }

    private func armWatchdog() {
        watchdog = GLibTimer(after: configuration.timing.pongTimeout) { [weak self] in
            guard let self else { return }
            self.log.warning("no pong for \(self.configuration.timing.pongTimeout) s; reconnecting")
            self.socket?.connection.abort()
        }
    }

    private func stopKeepalive() {
        pingTimer = nil
        watchdog = nil
    }
}
