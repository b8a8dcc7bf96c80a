import C1nkGLibBase
import C1nkProtocol
import C1nkSignaling
import FoundationEssentials

/// A local C1nk signaling server on libsoup's `SoupServer`: the C1nk app protocol
/// plus the door protocol (both in docs/protocol.md). Tests, the demo and
/// self-hosters use it; the client never depends on it.
///
/// The sockets and timers live here; who is in which call, and what goes to
/// whom, is the `CallRouter`'s (a value, tested without sockets).
///
/// Lives on the main context. Listens on the loopback interface only.
public final class SignalServer {
    public struct Options {
        /// 0 picks a free port.
        public var port: UInt16 = 0
        public var path = "/ws"
        /// A ring that nobody accepts ends with reason `no-answer` after this.
        public var ringTimeout: Double = 60
        /// An app that drops mid-call has this long to come back and `join` again.
        public var rejoinGrace: Double = 30
        /// PEM files of a certificate and its key: serve `wss://` instead of `ws://`.
        public var tlsCertificate: (certificate: String, key: String)?
        public init() {}
    }

    /// The port the server listens on (127.0.0.1).
    public private(set) var port: UInt16 = 0
    public var url: String { "\(options.tlsCertificate == nil ? "ws" : "wss")://127.0.0.1:\(port)\(options.path)" }
    /// Tests switch this off to let a client's pong watchdog fire.
    public var answersPings = true
    /// Tests switch this off for a door that never answers `open-door`.
    public var forwardsOpenDoor: Bool {
        get { router.options.forwardsOpenDoor }
        set { router.options.forwardsOpenDoor = newValue }
    }
    /// Media between doors and apps crosses this relay: the addresses in
    /// offers, answers and candidates are rewritten to its sockets (tests and
    /// the benchmark put a bottleneck there).
    public var relay: MediaRelay?
    /// Every message an app sends, as the server reads it (tests: the order on the wire).
    public var onAppMessage: ((_ deviceId: String, _ message: ClientMessage) -> Void)?

    private let options: Options
    private let log = Log.server
    private var listener: WebSocketListener?
    private var peers: [ObjectIdentifier: Peer] = [:]
    private var router: CallRouter
    private var timers: [CallRouter.Timer: GLibTimer] = [:]

    public init(_ options: Options = Options()) throws {
        self.options = options
        var routing = CallRouter.Options()
        routing.ringTimeout = options.ringTimeout
        routing.rejoinGrace = options.rejoinGrace
        router = CallRouter(options: routing)
        listener = try WebSocketListener(port: options.port, path: options.path,
                                         tlsCertificate: options.tlsCertificate) { [weak self] connection, host in
            self?.accepted(connection, from: host)
        }
        port = listener?.port ?? 0
        log.info("listening on \(url)")
    }

    /// Stops listening and closes every connection.
    public func stop() {
        for peer in peers.values { peer.socket.connection.close(reason: "server stopping") }
        peers.removeAll()
        timers.removeAll()
        router = CallRouter(options: router.options)
        listener?.stop()
        listener = nil
    }

    deinit { stop() }

    // MARK: - Inspection and fault injection (tests, diagnostics)

    /// Device ids of the apps connected now.
    public var connectedAppIds: [String] { peers.values.compactMap { $0.role == .app ? $0.id : nil } }
    /// Ids of the calls in progress.
    public var activeCallIds: [String] { Array(router.calls.keys) }

    /// Sends a raw text frame to every app (malformed-input tests).
    public func sendRawToApps(_ text: String) {
        peers.values.filter { $0.role == .app }.forEach { $0.socket.connection.send(text) }
    }

    /// Sends a binary frame to every app.
    public func sendBinaryToApps(_ bytes: [UInt8]) {
        peers.values.filter { $0.role == .app }.forEach { $0.socket.connection.sendBinary(bytes) }
    }

    /// Forgets a call without telling anyone, as a server that restarted
    /// would: a later `join` for it gets `error`.
    public func forgetCall(_ callId: String) {
        perform(router.forget(callId))
    }

    /// Drops every app socket without a close handshake.
    public func dropAppConnections() {
        peers.values.filter { $0.role == .app }.forEach { $0.socket.connection.abort() }
    }

    // MARK: - Connections

    private enum Role { case unknown, app, door }

    private final class Peer {
        let socket: MessageSocket<AnyIncoming>
        let host: String
        var role = Role.unknown
        /// deviceId for an app, doorId for a door.
        var id = ""
        var doorName = ""
        init(socket: MessageSocket<AnyIncoming>, host: String) { self.socket = socket; self.host = host }
    }

    private func accepted(_ connection: WebSocketConnection, from host: String) {
        let socket = MessageSocket<AnyIncoming>(connection, log: log)
        let peer = Peer(socket: socket, host: host)
        let key = ObjectIdentifier(peer)
        peers[key] = peer
        socket.onMessage = { [weak self, weak peer] message in
            guard let self, let peer else { return }
            self.received(message, from: peer)
        }
        socket.onProtocolError = { [weak peer] error in
            peer?.socket.send(ServerMessage.error(message: error.description))
        }
        socket.onClosed = { [weak self] reason in
            guard let self, let peer = self.peers.removeValue(forKey: key) else { return }
            self.closed(peer, reason: reason)
        }
        log.info("connection from \(host)")
        socket.send(ServerMessage.welcome)
    }

    private func received(_ message: AnyIncoming, from peer: Peer) {
        if case .ping = message.app, answersPings {
            peer.socket.send(ServerMessage.pong)
            return
        }
        switch peer.role {
        case .unknown:
            helloFromUnknown(message, peer)
        case .app:
            guard let app = message.app else { return refuse(message, peer) }
            onAppMessage?(peer.id, app)
            guard let routed = relay.map({ $0.rewrite(app) }) ?? app else { return }
            route(.fromApp(deviceId: peer.id, routed))
        case .door:
            guard let door = message.door else { return refuse(message, peer) }
            guard let routed = relay.map({ $0.rewrite(door) }) ?? door else { return }
            route(.fromDoor(doorId: peer.id, routed))
        }
    }

    private func refuse(_ message: AnyIncoming, _ peer: Peer) {
        peer.socket.send(ServerMessage.error(message: "\"\(message.type)\" is not a message for a \(peer.role == .app ? "app" : "door")"))
    }

    private func helloFromUnknown(_ message: AnyIncoming, _ peer: Peer) {
        if let id = message.app?.helloId ?? message.door?.helloId, let refusal = ServerIdentifier.refusal(id) {
            log.warning("refused a hello with the id \"\(ServerIdentifier.printable(id))\": \(refusal)")
            peer.socket.send(ServerMessage.error(message: "hello refused: the id is not valid (\(refusal))"))
        } else if case let .hello(role, deviceId, _, _)? = message.app, role == "app" {
            let id = deviceId.isEmpty ? UUID().uuidString : deviceId
            // A device reconnecting replaces its stale socket.
            for other in peers.values where other !== peer && other.role == .app && other.id == id {
                other.role = .unknown
                other.socket.connection.close(reason: "replaced by a new connection")
            }
            peer.role = .app
            peer.id = id
            if let hello = message.app { onAppMessage?(id, hello) }
            log.info("app \(id) said hello")
            route(.appConnected(deviceId: id))
        } else if case let .hello(doorId, doorName)? = message.door {
            peer.role = .door
            peer.id = doorId.isEmpty ? UUID().uuidString : doorId
            peer.doorName = ServerText.doorName(doorName)
            log.info("door \(peer.id) (\(peer.doorName)) said hello")
            route(.doorConnected(doorId: peer.id, doorName: peer.doorName))
        } else {
            peer.socket.send(ServerMessage.error(message: "say hello (role app or door) first"))
        }
    }

    private func closed(_ peer: Peer, reason: String) {
        log.info("\(peer.role == .door ? "door" : "app") \(peer.id) disconnected: \(reason)")
        switch peer.role {
        case .door: route(.doorDisconnected(doorId: peer.id))
        case .app: route(.appDisconnected(deviceId: peer.id))
        case .unknown: break
        }
    }

    // MARK: - Calls

    private func route(_ event: CallRouter.Event) {
        perform(router.handle(event))
    }

    private func perform(_ actions: [CallRouter.Action]) {
        for action in actions {
            switch action {
            case let .toApp(deviceId, message):
                peers.values.first { $0.role == .app && $0.id == deviceId }?.socket.send(message)
            case let .toDoor(doorId, message):
                doorPeer(doorId)?.socket.send(message)
            case let .errorToDoor(doorId, message):
                doorPeer(doorId)?.socket.send(message)
            case let .startTimer(timer, seconds):
                timers[timer] = GLibTimer(after: seconds) { [weak self] in
                    guard let self else { return }
                    self.timers[timer] = nil
                    self.route(.timeout(timer))
                }
            case .cancelTimer(let timer):
                timers[timer] = nil
            case .log(let line):
                log.info(line)
            }
        }
    }

    private func doorPeer(_ doorId: String) -> Peer? { peers.values.first { $0.role == .door && $0.id == doorId } }
}

/// A frame before we know who sent it: the app and door dialects share
/// `type` names, so both readings are kept and the peer's role picks one.
struct AnyIncoming: WireMessage {
    let type: String
    let app: ClientMessage?
    let door: DoorMessage?

    func encodePayload(to container: inout KeyedEncodingContainer<WireKey>) throws {
        if let app { try app.encodePayload(to: &container) } else { try door?.encodePayload(to: &container) }
    }

    static func decode(type: String, from c: KeyedDecodingContainer<WireKey>) throws -> AnyIncoming? {
        var appError: Error?
        var app: ClientMessage?
        var door: DoorMessage?
        do { app = try ClientMessage.decode(type: type, from: c) } catch { appError = error }
        do { door = try DoorMessage.decode(type: type, from: c) } catch { if app == nil, appError == nil { throw error } }
        if app == nil && door == nil {
            if let appError { throw appError }
            return nil
        }
        // A door's hello also reads as an app hello of role "door": keep the door reading.
        if case let .hello(role, _, _, _)? = app, role == "door" { app = nil }
        return AnyIncoming(type: type, app: app, door: door)
    }
}
