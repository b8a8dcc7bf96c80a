import C1nkCall
import C1nkSpeaker

/// What the wall display shows, as a pure state machine in the shape of
/// `CallMachine`: the answerer's events in, timers and sounds out, no clock
/// and no I/O. The display renders a new picture only when `screen` or
/// `connected` changes, never per video frame.
struct DisplayMachine: Equatable, Sendable {
    enum Screen: Equatable, Sendable {
        /// Home: building header, connection dot, clock, last rings.
        case idle
        /// A ring: door name, pulse, accept and reject; `preview` once the
        /// door's video shows.
        case ringing(door: String, preview: Bool)
        case inCall(InCall)
        /// A short screen after a call: "Hovor ukončený" with the reason, or
        /// "Bez pripojenia" when no connection was made.
        case ended(door: String, reason: CallMachine.EndReason)
    }

    struct InCall: Equatable, Sendable {
        var door: String
        var picture: Picture
        var muted: Bool
        var notice: DoorNotice

        init(door: String, picture: Picture = .waiting, muted: Bool = false, notice: DoorNotice = .none) {
            self.door = door
            self.picture = picture
            self.muted = muted
            self.notice = notice
        }
    }

    enum Picture: Equatable, Sendable {
        /// Connected, the first frame not yet here (under 3 s).
        case waiting
        case showing
        /// "Bez obrazu": no frame within 3 s; audio goes on.
        case none
    }

    /// What the open button says for a moment after an open.
    enum DoorNotice: Equatable, Sendable { case none, unlocked, failed }

    enum Timer: Equatable, Sendable, CaseIterable {
        case noPicture, doorNotice, endScreen

        /// 3 s without video before "Bez obrazu", 2.5 s of ODOMKNUTÉ, 3 s of
        /// the end screen before home.
        var seconds: Double {
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

    enum Event: Equatable, Sendable {
        case connection(Bool)
        case ringing(door: String)
        case mediaConnected
        case firstFrame
        case accepted
        case doorOpened
        case doorOpenFailed
        case muted(Bool)
        /// The `ended` event's reason.
        case ended(reason: CallMachine.EndReason)
        case timeout(Timer)
    }

    enum Action: Equatable, Sendable {
        case startTimer(Timer)
        case cancelTimer(Timer)
        case play(Sound)
    }

    private(set) var screen: Screen = .idle
    private(set) var connected = false
    private var frameSeen = false

    init() {}

    mutating func handle(_ event: Event) -> [Action] {
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
            // The resident ended it: the falling tone. (The door, another device or a failure: none.)
            if reason == .hangup || reason == .rejected { actions.append(.play(.ended)) }
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
