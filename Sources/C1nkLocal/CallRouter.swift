import C1nkProtocol
import FoundationEssentials

/// The local server's call flow (docs/protocol.md, "The server's call flow")
/// as a plain value: who is connected, the calls, who rang, joined, accepted
/// and left; messages and timers in, messages and timers out. No sockets, no
/// clock: `SignalServer` carries the frames and runs the timers, tests drive
/// it directly.
public struct CallRouter {
    public struct Options: Sendable {
        /// A ring that nobody accepts ends with reason `no-answer` after this.
        public var ringTimeout: Double = 60
        /// An app that drops mid-call has this long to come back and `join` again.
        public var rejoinGrace: Double = 30
        /// Off: `open-door` is swallowed (a door that never answers, for tests).
        public var forwardsOpenDoor = true
        public init() {}
    }

    /// Where new call and peer ids come from (random; counted in tests).
    public struct Ids {
        public var callId: () -> String
        public var peerId: () -> String
        public init(callId: @escaping () -> String, peerId: @escaping () -> String) {
            self.callId = callId
            self.peerId = peerId
        }

        public static var random: Ids {
            Ids(callId: { UUID().uuidString.lowercased() }, peerId: { "peer-" + UUID().uuidString.prefix(8).lowercased() })
        }

        /// `call-1`, `call-2`, … and `peer-1`, `peer-2`, …
        public static func counted() -> Ids {
            final class Counter { var calls = 0, peers = 0 }
            let counter = Counter()
            return Ids(callId: { counter.calls += 1; return "call-\(counter.calls)" },
                       peerId: { counter.peers += 1; return "peer-\(counter.peers)" })
        }
    }

    public enum Timer: Hashable, Sendable {
        /// Nobody accepted the ring in time.
        case ring(callId: String)
        /// An app dropped mid-call and has not joined again.
        case rejoin(callId: String, deviceId: String)
    }

    public enum Event: Equatable, Sendable {
        /// An app said `hello` (its socket is the device's only one now).
        case appConnected(deviceId: String)
        case appDisconnected(deviceId: String)
        case fromApp(deviceId: String, ClientMessage)
        case doorConnected(doorId: String, doorName: String)
        case doorDisconnected(doorId: String)
        case fromDoor(doorId: String, DoorMessage)
        case timeout(Timer)
    }

    public enum Action: Equatable, Sendable {
        case toApp(deviceId: String, ServerMessage)
        case toDoor(doorId: String, ServerToDoorMessage)
        /// A refusal to a door, in the app dialect's `error` (the door dialect has none).
        case errorToDoor(doorId: String, ServerMessage)
        /// (Re)starts a timer; it comes back as `.timeout(timer)`.
        case startTimer(Timer, seconds: Double)
        case cancelTimer(Timer)
        /// A line for the server's log.
        case log(String)
    }

    public enum MemberState: Equatable, Sendable { case ringing, joined, accepted, left }

    public struct Member: Equatable, Sendable {
        public var peerId: String
        public var state = MemberState.ringing
        /// The door renegotiated while this app was away: sent on its rejoin.
        public var offerForRejoin: String?
    }

    public struct Call: Equatable, Sendable {
        public let id: String
        public let doorId: String
        public let doorName: String
        /// By device id.
        public var members: [String: Member] = [:]
        public var acceptedBy: String?
        public var openRequestedBy: String?

        func device(forPeer peerId: String) -> String? { members.first { $0.value.peerId == peerId }?.key }
    }

    public var options: Options
    /// Device ids of the connected apps, in the order they said hello.
    public internal(set) var apps: [String] = []
    /// The connected doors by door id: their name and how many sockets say they are it.
    public internal(set) var doors: [String: (name: String, sockets: Int)] = [:]
    public internal(set) var calls: [String: Call] = [:]
    /// The timers running now.
    public internal(set) var timers: Set<Timer> = []
    let ids: Ids
    var actions: [Action] = []

    public init(options: Options = Options(), ids: Ids = .random) {
        self.options = options
        self.ids = ids
    }

    public mutating func handle(_ event: Event) -> [Action] {
        actions = []
        switch event {
        case .appConnected(let device): appConnected(device)
        case .appDisconnected(let device): appDisconnected(device)
        case let .fromApp(device, message): fromApp(device, message)
        case let .doorConnected(doorId, doorName):
            doors[doorId] = (doorName, (doors[doorId]?.sockets ?? 0) + 1)
            toDoor(doorId, .helloOk(doorId: doorId))
        case .doorDisconnected(let doorId):
            if let door = doors[doorId] { doors[doorId] = door.sockets > 1 ? (door.name, door.sockets - 1) : nil }
            for call in calls.values.sorted(by: { $0.id < $1.id }) where call.doorId == doorId {
                endCall(call.id, reason: "door-left", notifyDoor: false)
            }
        case let .fromDoor(doorId, message): fromDoor(doorId, message)
        case .timeout(let timer): timedOut(timer)
        }
        return actions
    }

    /// Forgets a call without telling anyone, as a server that restarted would.
    public mutating func forget(_ callId: String) -> [Action] {
        actions = []
        if calls.removeValue(forKey: callId) != nil { cancelTimers(of: callId) }
        return actions
    }

    // MARK: - Apps

    mutating func appConnected(_ device: String) {
        if !apps.contains(device) { apps.append(device) }
        toApp(device, .helloOk(deviceId: device))
        // Rings in progress reach an app that connects late, like a push would.
        for id in calls.keys.sorted() {
            guard let call = calls[id], call.acceptedBy == nil, call.members[device]?.state != .left else { continue }
            if call.members[device] == nil { calls[id]?.members[device] = Member(peerId: ids.peerId()) }
            toApp(device, .incoming(callId: id, doorName: call.doorName))
        }
    }

    mutating func appDisconnected(_ device: String) {
        apps.removeAll { $0 == device }
        // Media is peer to peer and may well go on: give the app time to rejoin.
        for id in calls.keys.sorted() {
            guard let member = calls[id]?.members[device], member.state != .left, member.state != .ringing else { continue }
            // A `join` cancels this timer: when it fires, the app has not rejoined
            // (it may have said hello again, as a restarted answerer does, and lost the call).
            startTimer(.rejoin(callId: id, deviceId: device), options.rejoinGrace)
        }
    }

    mutating func fromApp(_ device: String, _ message: ClientMessage) {
        switch message {
        case .hello:
            toApp(device, .error(message: "already said hello"))
        case .ping:
            break
        case .registerToken:
            toApp(device, .tokenOk)
        case let .join(callId):
            guard let call = call(callId, from: device) else { return }
            var member = call.members[device] ?? Member(peerId: ids.peerId())
            if member.state == .left || (call.acceptedBy != nil && call.acceptedBy != device) {
                return toApp(device, .callEnd(callId: callId, reason: "answered-elsewhere"))
            }
            cancelTimer(.rejoin(callId: callId, deviceId: device))
            toApp(device, .joinOk(callId: callId))
            if member.state == .ringing {
                member.state = .joined
                calls[callId]?.members[device] = member
                toDoor(call.doorId, .join(callId: callId, peerId: member.peerId))
            } else if let offer = member.offerForRejoin {
                // The door renegotiated while this app was away.
                calls[callId]?.members[device]?.offerForRejoin = nil
                toApp(device, .offer(callId: callId, sdp: offer))
            }
        case let .answer(callId, sdp):
            guard let call = call(callId, from: device), let member = call.members[device] else { return }
            toDoor(call.doorId, .answer(callId: callId, peerId: member.peerId, sdp: sdp))
        case let .ice(callId, candidate):
            guard let call = calls[callId], let member = call.members[device] else { return }
            toDoor(call.doorId, .ice(callId: callId, peerId: member.peerId, candidate: candidate))
        case let .accept(callId):
            guard let call = call(callId, from: device), let member = call.members[device] else { return }
            if let winner = call.acceptedBy, winner != device {
                return toApp(device, .callEnd(callId: callId, reason: "answered-elsewhere"))
            }
            calls[callId]?.acceptedBy = device
            cancelTimer(.ring(callId: callId))
            calls[callId]?.members[device]?.state = .accepted
            toDoor(call.doorId, .accept(callId: callId, peerId: member.peerId))
            for other in call.members.keys.sorted() where other != device { leave(callId, other, reason: "answered-elsewhere") }
        case let .reject(callId):
            guard call(callId, from: device) != nil else { return }
            leave(callId, device, reason: "rejected", notifyApp: false)
        case let .hangup(callId):
            guard let call = call(callId, from: device) else { return }
            if call.acceptedBy == device || call.acceptedBy == nil && call.members.count <= 1 {
                endCall(callId, reason: "hangup", except: device)
            } else {
                leave(callId, device, reason: "hangup", notifyApp: false)
            }
        case let .openDoor(callId):
            guard let call = call(callId, from: device), let member = call.members[device], options.forwardsOpenDoor else { return }
            calls[callId]?.openRequestedBy = device
            toDoor(call.doorId, .openDoor(callId: callId, peerId: member.peerId))
        }
    }

    /// The call, or an `error` to the app that named an unknown one.
    mutating func call(_ callId: String, from device: String) -> Call? {
        if let call = calls[callId] { return call }
        toApp(device, .error(message: "unknown call \(callId)", callId: callId))
        return nil
    }
}
