import C1nkGLib
import C1nkLocal
import C1nkMedia
import C1nkProbes
import C1nkProtocol
import C1nkSignaling
import FoundationEssentials
import Glibc

/// A door panel on GStreamer speaking the local server's door protocol:
/// rings, offers its camera and voice to every app that joins, hears the
/// resident, and "unlocks" on `open-door`. Used by the demo, the tests and
/// `c1nk-gst-door`.
public final class SimulatedDoor {
    public struct Options {
        public var serverURL: String
        public var doorId = "door-1"
        public var media = DoorMediaSession.Options()
        /// Off: `open-door` is lost on the way (no unlock, no `door-opened`), as on a bad network.
        public var confirmsOpening = true
        public init(serverURL: String) { self.serverURL = serverURL }
    }

    public enum Event: Equatable {
        case ready
        case rang(callId: String)
        case peerJoined(peerId: String)
        case mediaConnected(peerId: String)
        case accepted(peerId: String)
        case doorOpened
        case callEnded(reason: String)
        case disconnected(reason: String)
        case error(String)
    }

    public var onEvent: ((Event) -> Void)?
    public private(set) var callId: String?
    public private(set) var isReady = false
    public private(set) var doorOpened = false
    /// When the resident accepted (monotonic seconds).
    public private(set) var acceptedAt: Double?
    /// The resident's audio as the door heard it: (monotonic seconds, dBFS).
    public private(set) var heardLevels: [(time: Double, level: Double)] = []
    /// With `analyseBands`: the door's and the resident's bands as heard.
    public private(set) var heardBands: [(time: Double, band: String, level: Double)] = []

    private let options: Options
    private let log = Log.door
    private let connector: WebSocketConnector
    private var socket: MessageSocket<ServerToDoorMessage>?
    private var peers: [String: DoorMediaSession] = [:]
    private var spare: PreparedSession?
    /// Whether the next call's session is made before the bell is pressed.
    /// Not for a door that adapts to feedback: webrtcbin holds its media
    /// back until DTLS is up, and an encoder held back for seconds spends a
    /// budget of seconds on its first frames (a 40 KB burst, more than a
    /// narrow uplink's queue holds); made at the ring, it waits a moment only.
    private var prepareEarly: Bool { !options.media.adaptsToFeedback }
    /// The door's uplink (`NetworkImpairment.uplinkKbps`): its media crosses
    /// this relay, whose bottleneck is a home router's.
    private let relay: MediaRelay?

    /// The uplink's figures so far (forwarded, dropped, queue delays).
    public var uplink: UplinkBottleneck? { relay?.uplink }
    /// The encoder's targets as the answerer's feedback moved them, for the
    /// latest peer (with `media.adaptsToFeedback`).
    public var encoderRates: [(time: Double, kbps: Int)] { peers.values.first?.encoderRates ?? [] }
    /// What the latest peer's camera stamped (with `media.stampTime`); kept by whoever holds it after the call.
    public var stampedFrames: StampedFrames? { peers.values.first?.stampedFrames }
    /// An audio onset probe on the current call's `name` element (`door-mouth` in the door's own
    /// `audioSource`, `heard-level` for what it hears), once a call runs.
    public func onsetProbe(at name: String) -> AudioOnsetProbe? { peers.values.first?.onsetProbe(at: name) }

    public init(_ options: Options) throws {
        self.options = options
        connector = try WebSocketConnector(trustedCAFile: nil)
        if options.media.network.uplinkKbps > 0 {
            let relay = MediaRelay()
            relay.uplink = UplinkBottleneck(kbps: options.media.network.uplinkKbps, queueMilliseconds: options.media.network.uplinkQueueMilliseconds)
            self.relay = relay
        } else {
            relay = nil
        }
        WebRTCBin.warmUp(ElementWarmUp.Stage.allCases)
    }

    /// Connects and says hello; `.ready` follows.
    public func start() {
        connector.connect(to: options.serverURL) { [weak self] result in
            guard let self else { return }
            switch result {
            case .failure(let error):
                self.onEvent?(.error("cannot reach the server at \(self.options.serverURL): \(error.message)"))
            case .success(let connection):
                // The socket's lines stay under the commands' category: its warnings
                // (a frame ignored) reach standard error as "c1nk: warning: …".
                let socket = MessageSocket<ServerToDoorMessage>(connection, log: .app)
                self.socket = socket
                socket.onMessage = { [weak self] in self?.received($0) }
                socket.onClosed = { [weak self] reason in
                    self?.isReady = false
                    self?.stopPeers()
                    self?.onEvent?(.disconnected(reason: reason))
                }
                socket.send(DoorMessage.hello(doorId: self.options.doorId, doorName: self.options.media.doorName))
            }
        }
    }

    /// The visitor presses the bell. Like a real panel whose camera is
    /// already running, the door has its first session and offer prepared
    /// (since it connected, or since its last call ended), so the first app
    /// to join gets an offer at once.
    public func ring() {
        heardLevels.removeAll()
        heardBands.removeAll()
        acceptedAt = nil
        doorOpened = false
        if spare == nil { spare = makeSession() }
        socket?.send(DoorMessage.ring)
    }

    /// The visitor walks away: the door ends the call.
    public func hangup() {
        guard let callId else { return }
        socket?.send(DoorMessage.hangup(callId: callId))
        endCall(reason: "door-hangup")
    }

    /// The door opened from its own side (its keypad, a key): `door-opened`
    /// for the current call, unasked, as a panel reports it.
    public func reportOpened() {
        guard let callId else { return }
        doorOpened = true
        socket?.send(DoorMessage.doorOpened(callId: callId))
    }

    /// Replaces every peer's session with a fresh one and offers again, as a
    /// door does after a network change (webrtcbin 1.22 has no ICE restart).
    public func restartMedia() {
        guard let callId else { return }
        for peerId in Array(peers.keys) { startPeer(peerId, callId: callId) }
    }

    public func stop() {
        stopPeers()
        relay?.stop()
        socket?.connection.close(reason: "door stopping")
        socket = nil
    }

    /// Adds `packet` to the next compound RTCP packet each connected peer's
    /// session sends, encrypted as the door's own and from its SSRC (bytes
    /// 4–7 are replaced): a door whose feedback lies. False when no peer is
    /// connected to send it.
    @discardableResult
    public func sendRTCP(_ packet: [UInt8]) -> Bool {
        peers.values.reduce(false) { $1.sendRTCP(packet) || $0 }
    }

    /// Packets of `sendRTCP` that have left, over every peer.
    public var extraRTCPSent: Int { peers.values.reduce(0) { $0 + $1.extraRTCPSent } }

    /// Mean power (dBFS) heard in a band between two times (monotonic seconds).
    public func meanHeard(band: String, since start: Double, until end: Double = .infinity) -> Double {
        let levels = heardBands.filter { $0.band == band && $0.time >= start && $0.time <= end }.map(\.level)
        guard !levels.isEmpty else { return -.infinity }
        let power = levels.map { $0.isFinite ? pow(10, $0 / 10) : 0 }.reduce(0, +) / Double(levels.count)
        return power > 0 ? 10 * log10(power) : -.infinity
    }

    /// Loudest level heard since `time` (monotonic seconds).
    public func loudestHeard(since time: Double = 0, until end: Double = .infinity) -> Double {
        heardLevels.filter { $0.time >= time && $0.time <= end }.map(\.level).max() ?? -.infinity
    }

    private func received(_ incoming: ServerToDoorMessage) {
        guard let message = relay.map({ $0.rewrite(incoming) }) ?? incoming else { return }
        switch message {
        case .helloOk:
            isReady = true
            // The camera runs before anyone rings: the first offer is ready
            // when the bell is pressed.
            if spare == nil, prepareEarly { spare = makeSession() }
            onEvent?(.ready)
        case .ringOk(let id):
            callId = id
            onEvent?(.rang(callId: id))
        case let .join(id, peerId):
            guard id == callId else { return }
            onEvent?(.peerJoined(peerId: peerId))
            startPeer(peerId, callId: id)
        case let .answer(id, peerId, sdp):
            guard id == callId else { return }
            peers[peerId]?.applyAnswer(sdp)
        case let .ice(id, peerId, candidate):
            guard id == callId else { return }
            peers[peerId]?.addRemoteCandidate(candidate)
        case let .accept(id, peerId):
            guard id == callId else { return }
            acceptedAt = MainContext.monotonicSeconds()
            onEvent?(.accepted(peerId: peerId))
        case let .leave(id, peerId, _):
            guard id == callId else { return }
            peers.removeValue(forKey: peerId)?.stop()
        case let .openDoor(id, _):
            guard id == callId, options.confirmsOpening else { return }
            doorOpened = true
            log.info("door \(options.doorId): unlocked for call \(id)")
            socket?.send(DoorMessage.doorOpened(callId: id))
            onEvent?(.doorOpened)
        case let .callEnd(id, reason):
            guard id == callId else { return }
            endCall(reason: reason)
        case .error(let text):
            onEvent?(.error(text))
        case .welcome, .pong:
            break
        }
    }

    /// A session made before anyone joined; what it produced waits for a peer.
    private final class PreparedSession {
        let session: DoorMediaSession
        var offer: String?
        var candidates: [IceCandidate] = []
        init(_ session: DoorMediaSession) { self.session = session }
    }

    private func makeSession() -> PreparedSession? {
        do {
            let prepared = PreparedSession(try DoorMediaSession(options: options.media))
            prepared.session.onOffer = { [weak prepared] in prepared?.offer = $0 }
            prepared.session.onLocalCandidate = { [weak prepared] in prepared?.candidates.append($0) }
            return prepared
        } catch {
            onEvent?(.error("cannot start the door's media: \(error)"))
            return nil
        }
    }

    private func startPeer(_ peerId: String, callId: String) {
        peers.removeValue(forKey: peerId)?.stop()
        let taken = spare ?? makeSession()
        spare = nil
        guard let prepared = taken else { return }
        let session = prepared.session
        let send = { [weak self] (message: DoorMessage) in
            guard let self, let routed = self.relay.map({ $0.rewrite(message) }) ?? message else { return }
            self.socket?.send(routed)
        }
        session.onOffer = { sdp in send(.offer(callId: callId, peerId: peerId, sdp: sdp)) }
        session.onLocalCandidate = { candidate in send(.ice(callId: callId, peerId: peerId, candidate: candidate)) }
        if let offer = prepared.offer { send(.offer(callId: callId, peerId: peerId, sdp: offer)) }
        for candidate in prepared.candidates { send(.ice(callId: callId, peerId: peerId, candidate: candidate)) }
        session.onConnected = { [weak self] in self?.onEvent?(.mediaConnected(peerId: peerId)) }
        session.onFailure = { [weak self] reason in self?.onEvent?(.error("peer \(peerId): \(reason)")) }
        session.onHeardLevel = { [weak self] level in
            self?.heardLevels.append((MainContext.monotonicSeconds(), level))
        }
        session.onHeardBand = { [weak self] band, level in
            self?.heardBands.append((MainContext.monotonicSeconds(), band, level))
        }
        peers[peerId] = session
    }

    private func endCall(reason: String) {
        stopPeers()
        callId = nil
        if isReady, prepareEarly { spare = makeSession() }
        onEvent?(.callEnded(reason: reason))
    }

    private func stopPeers() {
        peers.values.forEach { $0.stop() }
        peers.removeAll()
        spare?.session.stop()
        spare = nil
    }
}
