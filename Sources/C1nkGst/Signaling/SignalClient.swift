import CGStreamer

/// The app's connection to the C1nk signaling server (seed 000 §7.1).
///
/// Says `hello` after every connect, keeps the link alive with `ping` and a
/// `pong` watchdog, reconnects with exponential backoff, and queues what the
/// app sends while the socket is down (a `join` may precede the first
/// connect). Lives on the main context; events arrive through `onEvent`.
public final class SignalClient {
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
    /// The one stream of events; set it before `start()`.
    public var onEvent: ((SignalEvent) -> Void)?
    /// Called when the server assigns a new device id, so it can be persisted.
    public var onDeviceIdAssigned: ((String) -> Void)?

    private let log = Log.signaling
    private let connector: WebSocketConnector
    private var socket: MessageSocket<ServerMessage>?
    private var queue: [ClientMessage] = []
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
    }

    /// Sends now if connected, otherwise queues until after the next `hello`.
    public func send(_ message: ClientMessage) {
        if let socket, socket.isOpen {
            socket.send(message)
        } else {
            log.debug("queued \(message.type) while disconnected")
            queue.append(message)
        }
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
        socket.send(ClientMessage.hello(deviceId: configuration.deviceId, voipToken: configuration.voipToken,
                                        bundleId: configuration.bundleId))
        let pending = queue
        queue.removeAll()
        pending.forEach { socket.send($0) }
        startKeepalive()
        onEvent?(.connected)
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
            armWatchdog()
        case .helloOk(let deviceId):
            // A healthy connection: the next drop starts the backoff afresh.
            failures = 0
            if let deviceId, !deviceId.isEmpty, deviceId != configuration.deviceId {
                log.info("server assigned device id \(deviceId)")
                configuration.deviceId = deviceId
                onDeviceIdAssigned?(deviceId)
                onEvent?(.deviceIdAssigned(deviceId))
            }
            onEvent?(.ready(deviceId: configuration.deviceId))
        case .welcome:
            log.info("server says welcome")
        case .error(let text):
            log.warning("server error: \(text)")
        default:
            break
        }
        onEvent?(.message(message))
    }

    // MARK: - Keepalive

    private func startKeepalive() {
        pingTimer = GLibTimer(after: configuration.timing.pingInterval, repeats: true) { [weak self] in
            self?.socket?.send(ClientMessage.ping)
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
