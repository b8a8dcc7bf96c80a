import CGStreamer
import Foundation

/// A local C1nk signaling server on libsoup's `SoupServer`: the app protocol of
/// the seed plus the door protocol of docs/protocol.md. Tests, the demo and
/// self-hosters use it; the client never depends on it.
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
    public var forwardsOpenDoor = true
    /// Every message an app sends, as the server reads it (tests: the order on the wire).
    public var onAppMessage: ((_ deviceId: String, _ message: ClientMessage) -> Void)?

    private let options: Options
    private let log = Log.server
    private var server: UnsafeMutablePointer<SoupServer>?
    private var peers: [ObjectIdentifier: Peer] = [:]
    private var calls: [String: Call] = [:]

    public init(_ options: Options = Options()) throws {
        self.options = options
        GStreamer.initialize()
        let server = c1nk_soup_server_new("c1nk-gst")!
        self.server = server
        AsyncCallback.addWebSocketHandler(server, path: options.path) { [weak self] raw, host in
            self?.accepted(raw, from: host)
        }
        var listenOptions = SOUP_SERVER_LISTEN_IPV4_ONLY.rawValue
        if let tls = options.tlsCertificate {
            let certificate = try GLibError.check { g_tls_certificate_new_from_files(tls.certificate, tls.key, $0) }
            c1nk_object_set_pointer(UnsafeMutableRawPointer(server), "tls-certificate", UnsafeMutableRawPointer(certificate))
            g_object_unref(UnsafeMutableRawPointer(certificate))
            listenOptions |= SOUP_SERVER_LISTEN_HTTPS.rawValue
        }
        try GLibError.check {
            soup_server_listen_local(server, guint(options.port), SoupServerListenOptions(listenOptions), $0)
        }
        if let uris = soup_server_get_uris(server) {
            if let first = uris.pointee.data { port = UInt16(g_uri_get_port(OpaquePointer(first))) }
            g_slist_free_full(uris, { g_uri_unref(OpaquePointer($0)) })
        }
        log.info("listening on \(url)")
    }

    /// Stops listening and closes every connection.
    public func stop() {
        for peer in peers.values { peer.socket.connection.close(reason: "server stopping") }
        peers.removeAll()
        calls.values.forEach { $0.timers.removeAll() }
        calls.removeAll()
        if let server {
            soup_server_disconnect(server)
            g_object_unref(gpointer(server))
            self.server = nil
        }
    }

    deinit { stop() }

    // MARK: - Inspection and fault injection (tests, diagnostics)

    /// Device ids of the apps connected now.
    public var connectedAppIds: [String] { peers.values.compactMap { $0.role == .app ? $0.id : nil } }
    /// Ids of the calls in progress.
    public var activeCallIds: [String] { Array(calls.keys) }

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
        calls.removeValue(forKey: callId)?.timers.removeAll()
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

    private func accepted(_ raw: OpaquePointer, from host: String) {
        let socket = MessageSocket<AnyIncoming>(WebSocketConnection(raw), log: log)
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
            receivedFromApp(app, peer)
        case .door:
            guard let door = message.door else { return refuse(message, peer) }
            receivedFromDoor(door, peer)
        }
    }

    private func refuse(_ message: AnyIncoming, _ peer: Peer) {
        peer.socket.send(ServerMessage.error(message: "\"\(message.type)\" is not a message for a \(peer.role == .app ? "app" : "door")"))
    }

    private func helloFromUnknown(_ message: AnyIncoming, _ peer: Peer) {
        if case let .hello(role, deviceId, _, _)? = message.app, role == "app" {
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
            peer.socket.send(ServerMessage.helloOk(deviceId: id))
            // Rings in progress reach an app that connects late, like a push would.
            for call in calls.values where call.acceptedBy == nil && call.members[id]?.state != .left {
                if call.members[id] == nil { call.members[id] = Member(peerId: newPeerId()) }
                peer.socket.send(ServerMessage.incoming(callId: call.id, doorName: call.doorName))
            }
        } else if case let .hello(doorId, doorName)? = message.door {
            peer.role = .door
            peer.id = doorId.isEmpty ? UUID().uuidString : doorId
            peer.doorName = doorName
            log.info("door \(peer.id) (\(doorName)) said hello")
            peer.socket.send(ServerToDoorMessage.helloOk(doorId: peer.id))
        } else {
            peer.socket.send(ServerMessage.error(message: "say hello (role app or door) first"))
        }
    }

    private func closed(_ peer: Peer, reason: String) {
        log.info("\(peer.role == .door ? "door" : "app") \(peer.id) disconnected: \(reason)")
        switch peer.role {
        case .door:
            for call in calls.values where call.doorId == peer.id { endCall(call, reason: "door-left", notifyDoor: false) }
        case .app:
            // Media is peer to peer and may well go on: give the app time to rejoin.
            for call in calls.values {
                guard let member = call.members[peer.id], member.state != .left, member.state != .ringing else { continue }
                // A `join` cancels this timer: when it fires, the app has not rejoined
                // (it may have said hello again, as a restarted answerer does, and lost the call).
                call.timers[peer.id] = GLibTimer(after: options.rejoinGrace) { [weak self, weak call] in
                    guard let self, let call else { return }
                    self.log.info("app \(peer.id) did not come back to call \(call.id)")
                    if call.acceptedBy == peer.id { self.endCall(call, reason: "app-left") } else { self.leave(call, peer.id, reason: "app-left") }
                }
            }
        case .unknown:
            break
        }
    }

    // MARK: - Calls

    private enum MemberState { case ringing, joined, accepted, left }

    private struct Member {
        var peerId: String
        var state = MemberState.ringing
        var offerForRejoin: String?
    }

    private final class Call {
        let id: String
        let doorId: String
        let doorName: String
        var members: [String: Member] = [:]
        var acceptedBy: String?
        var openRequestedBy: String?
        var timers: [String: GLibTimer] = [:]
        init(id: String, doorId: String, doorName: String) { self.id = id; self.doorId = doorId; self.doorName = doorName }

        func device(forPeer peerId: String) -> String? { members.first { $0.value.peerId == peerId }?.key }
    }

    private func newPeerId() -> String { "peer-" + UUID().uuidString.prefix(8).lowercased() }

    private func appPeer(_ deviceId: String) -> Peer? { peers.values.first { $0.role == .app && $0.id == deviceId } }
    private func doorPeer(_ doorId: String) -> Peer? { peers.values.first { $0.role == .door && $0.id == doorId } }

    private func sendToApp(_ deviceId: String, _ message: ServerMessage) { appPeer(deviceId)?.socket.send(message) }
    private func sendToDoor(_ call: Call, _ message: ServerToDoorMessage) { doorPeer(call.doorId)?.socket.send(message) }

    private func call(_ callId: String, for peer: Peer) -> Call? {
        if let call = calls[callId] { return call }
        peer.socket.send(ServerMessage.error(message: "unknown call \(callId)", callId: callId))
        return nil
    }

    private func receivedFromDoor(_ message: DoorMessage, _ peer: Peer) {
        switch message {
        case .hello:
            peer.socket.send(ServerMessage.error(message: "already said hello"))
        case .ping:
            break
        case .ring:
            let call = Call(id: UUID().uuidString.lowercased(), doorId: peer.id, doorName: peer.doorName)
            calls[call.id] = call
            peer.socket.send(ServerToDoorMessage.ringOk(callId: call.id))
            let apps = peers.values.filter { $0.role == .app }
            log.info("door \(peer.id) rings: call \(call.id) to \(apps.count) app(s)")
            for app in apps {
                call.members[app.id] = Member(peerId: newPeerId())
                app.socket.send(ServerMessage.incoming(callId: call.id, doorName: call.doorName))
            }
            call.timers["ring"] = GLibTimer(after: options.ringTimeout) { [weak self, weak call] in
                guard let self, let call, call.acceptedBy == nil else { return }
                self.endCall(call, reason: "no-answer")
            }
        case let .offer(callId, peerId, sdp):
            guard let call = calls[callId], call.doorId == peer.id, let device = call.device(forPeer: peerId) else {
                return peer.socket.send(ServerMessage.error(message: "unknown call or peer \(callId)/\(peerId)", callId: callId))
            }
            call.members[device]?.offerForRejoin = appPeer(device) == nil ? sdp : nil
            sendToApp(device, .offer(callId: callId, sdp: sdp))
        case let .ice(callId, peerId, candidate):
            guard let call = calls[callId], let device = call.device(forPeer: peerId) else { return }
            sendToApp(device, .ice(callId: callId, candidate: candidate))
        case let .doorOpened(callId):
            guard let call = calls[callId] else { return }
            if let device = call.openRequestedBy ?? call.acceptedBy { sendToApp(device, .doorOpenOk(callId: callId)) }
        case let .hangup(callId):
            guard let call = calls[callId], call.doorId == peer.id else { return }
            endCall(call, reason: "door-hangup", notifyDoor: false)
        }
    }

    private func receivedFromApp(_ message: ClientMessage, _ peer: Peer) {
        let device = peer.id
        onAppMessage?(device, message)
        switch message {
        case .hello:
            peer.socket.send(ServerMessage.error(message: "already said hello"))
        case .ping:
            break
        case .registerToken:
            peer.socket.send(ServerMessage.tokenOk)
        case let .join(callId):
            guard let call = call(callId, for: peer) else { return }
            var member = call.members[device] ?? Member(peerId: newPeerId())
            if member.state == .left || (call.acceptedBy != nil && call.acceptedBy != device) {
                return peer.socket.send(ServerMessage.callEnd(callId: callId, reason: "answered-elsewhere"))
            }
            call.timers[device] = nil
            peer.socket.send(ServerMessage.joinOk(callId: callId))
            if member.state == .ringing {
                member.state = .joined
                call.members[device] = member
                sendToDoor(call, .join(callId: callId, peerId: member.peerId))
            } else if let offer = member.offerForRejoin {
                // The door renegotiated while this app was away.
                call.members[device]?.offerForRejoin = nil
                peer.socket.send(ServerMessage.offer(callId: callId, sdp: offer))
            }
        case let .answer(callId, sdp):
            guard let call = call(callId, for: peer), let member = call.members[device] else { return }
            sendToDoor(call, .answer(callId: callId, peerId: member.peerId, sdp: sdp))
        case let .ice(callId, candidate):
            guard let call = calls[callId], let member = call.members[device] else { return }
            sendToDoor(call, .ice(callId: callId, peerId: member.peerId, candidate: candidate))
        case let .accept(callId):
            guard let call = call(callId, for: peer), let member = call.members[device] else { return }
            if let winner = call.acceptedBy, winner != device {
                return peer.socket.send(ServerMessage.callEnd(callId: callId, reason: "answered-elsewhere"))
            }
            call.acceptedBy = device
            call.timers["ring"] = nil
            call.members[device]?.state = .accepted
            sendToDoor(call, .accept(callId: callId, peerId: member.peerId))
            for (other, _) in call.members where other != device { leave(call, other, reason: "answered-elsewhere") }
        case let .reject(callId):
            guard let call = call(callId, for: peer) else { return }
            leave(call, device, reason: "rejected", notifyApp: false)
        case let .hangup(callId):
            guard let call = call(callId, for: peer) else { return }
            if call.acceptedBy == device || call.acceptedBy == nil && call.members.count <= 1 {
                endCall(call, reason: "hangup", except: device)
            } else {
                leave(call, device, reason: "hangup", notifyApp: false)
            }
        case let .openDoor(callId):
            guard let call = call(callId, for: peer), let member = call.members[device], forwardsOpenDoor else { return }
            call.openRequestedBy = device
            sendToDoor(call, .openDoor(callId: callId, peerId: member.peerId))
        }
    }

    /// One app leaves the call; the call ends when nobody is left.
    private func leave(_ call: Call, _ device: String, reason: String, notifyApp: Bool = true) {
        guard let member = call.members[device], member.state != .left else { return }
        call.members[device]?.state = .left
        call.timers[device] = nil
        if notifyApp { sendToApp(device, .callEnd(callId: call.id, reason: reason)) }
        sendToDoor(call, .leave(callId: call.id, peerId: member.peerId, reason: reason))
        if call.members.values.allSatisfy({ $0.state == .left }) {
            endCall(call, reason: reason)
        }
    }

    private func endCall(_ call: Call, reason: String, except: String? = nil, notifyDoor: Bool = true) {
        guard calls.removeValue(forKey: call.id) != nil else { return }
        log.info("call \(call.id) ended: \(reason)")
        call.timers.removeAll()
        for (device, member) in call.members where member.state != .left && device != except {
            sendToApp(device, .callEnd(callId: call.id, reason: reason))
        }
        if notifyDoor { sendToDoor(call, .callEnd(callId: call.id, reason: reason)) }
    }
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
