import C1nkSpeaker

/// What the wall display shows, as a pure state machine in the shape of
/// `CallMachine`: the answerer's events in, timers and sounds out, no clock
/// and no I/O. The display renders a new picture only when `screen` or
/// `connected` changes, never per video frame.
public struct DisplayMachine: Equatable, Sendable {
    public enum Screen: Equatable, Sendable {
        /// Home: building header, connection dot, clock, last rings.
        case idle
        /// A ring: door name, pulse, accept and reject; `preview` once the
        /// door's video shows.
        case ringing(door: String, preview: Bool)
        case inCall(InCall)
        /// A short screen after a call: "Hovor ukončený" with the reason, or
        /// "Bez pripojenia" when no connection was made.
        case ended(door: String, reason: String)
    }

    public struct InCall: Equatable, Sendable {
        public var door: String
        public var picture: Picture
        public var muted: Bool
        public var notice: DoorNotice

        public init(door: String, picture: Picture = .waiting, muted: Bool = false, notice: DoorNotice = .none) {
            self.door = door
            self.picture = picture
            self.muted = muted
            self.notice = notice
        }
    }

    public enum Picture: Equatable, Sendable {
        /// Connected, the first frame not yet here (under 3 s).
        case waiting
        case showing
        /// "Bez obrazu": no frame within 3 s; audio goes on.
        case none
    }

    /// What the open button says for a moment after an open.
    public enum DoorNotice: Equatable, Sendable { case none, unlocked, failed }

    public enum Timer: Equatable, Sendable, CaseIterable {
        case noPicture, doorNotice, endScreen

        /// Seed §10.2: 3 s without video, 2.5 s of ODOMKNUTÉ.
        public var seconds: Double {
            switch self {
            case .noPicture: return 3
            case .doorNotice: return 2.5
            case .endScreen: return 3
            }
        }
    }

    /// The display's sounds are the speaker's: a touch clicks, an opened
    /// door rises, a call hung up or rejected falls (`ended`).
    public typealias Sound = SpeakerSound

    public enum Event: Equatable, Sendable {
        case connection(Bool)
        case ringing(door: String)
        case mediaConnected
        case firstFrame
        case accepted
        case doorOpened
        case doorOpenFailed
        case muted(Bool)
        /// `reason` as in the `ended` event (`hangup`, `rejected`, `no-connection` …).
        case ended(reason: String)
        case timeout(Timer)
    }

    public enum Action: Equatable, Sendable {
        case startTimer(Timer)
        case cancelTimer(Timer)
        case play(Sound)
    }

    public private(set) var screen: Screen = .idle
    public private(set) var connected = false
    private var frameSeen = false

    public init() {}

    public mutating func handle(_ event: Event) -> [Action] {
        switch event {
        case .connection(let up):
            connected = up
            return []

        case .ringing(let door):
            frameSeen = false
            screen = .ringing(door: door, preview: false)
            return [.cancelTimer(.endScreen), .cancelTimer(.noPicture), .cancelTimer(.doorNotice)]

        case .mediaConnected:
            guard inCall != nil || isRinging, !frameSeen else { return [] }
            return [.startTimer(.noPicture)]

        case .firstFrame:
            frameSeen = true
            switch screen {
            case let .ringing(door, _): screen = .ringing(door: door, preview: true)
            case .inCall(var call):
                call.picture = .showing
                screen = .inCall(call)
            default: return []
            }
            return [.cancelTimer(.noPicture)]

        case .accepted:
            guard case let .ringing(door, preview) = screen else { return [] }
            screen = .inCall(InCall(door: door, picture: preview ? .showing : .waiting))
            // An audio-only door: the 3 s count from the accept.
            return preview ? [] : [.startTimer(.noPicture)]

        case .doorOpened, .doorOpenFailed:
            guard var call = inCall else { return [] }
            let opened = event == .doorOpened
            call.notice = opened ? .unlocked : .failed
            screen = .inCall(call)
            return [.startTimer(.doorNotice)] + (opened ? [.play(.doorOpened)] : [])

        case .muted(let muted):
            guard var call = inCall else { return [] }
            call.muted = muted
            screen = .inCall(call)
            return []

        case .ended(let reason):
            let door: String
            switch screen {
            case .ringing(let name, _): door = name
            case .inCall(let call): door = call.door
            case .idle, .ended: return []
            }
            screen = .ended(door: door, reason: reason)
            var actions: [Action] = [.cancelTimer(.noPicture), .cancelTimer(.doorNotice), .startTimer(.endScreen)]
            if reason == "hangup" || reason == "rejected" { actions.append(.play(.ended)) }
            return actions

        case .timeout(let timer):
            switch (timer, screen) {
            case (.noPicture, .inCall(var call)) where call.picture == .waiting:
                call.picture = .none
                screen = .inCall(call)
            case (.doorNotice, .inCall(var call)):
                call.notice = .none
                screen = .inCall(call)
            case (.endScreen, .ended):
                screen = .idle
            default:
                break
            }
            return []
        }
    }

    private var inCall: InCall? {
        if case .inCall(let call) = screen { return call }
        return nil
    }

    private var isRinging: Bool {
        if case .ringing = screen { return true }
        return false
    }
}
