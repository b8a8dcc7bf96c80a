/// When the process's speaker runs, sleeps, and tries again after a failure,
/// as a plain value in the shape of `CallMachine`: events in (an input
/// joining or leaving, the idle timer, the outcome of a start), actions out
/// (start, wake or sleep the mixer's graph, stop it after a failure, report
/// the failure, start or cancel the idle timer). No GStreamer and no clock:
/// `SpeakerOutput` performs the actions and feeds back their outcomes.
///
/// Rules it keeps:
/// - the speaker starts once, when it opens, and then runs while anything
///   plays (a sound, the ringtone, a call's audio);
/// - with nothing to play for `idleSeconds` it sleeps (the device stays open
///   but nothing runs); the next input wakes it before it joins;
/// - an input joining cancels the idle timer; the last one leaving, or one
///   that could not join while nothing else plays, starts it;
/// - a failed speaker (its sink or mixer) reports the failure once, never
///   sleeps, and starts again when the next input joins (the device may be
///   free by then); it is stopped again at every further failure, reported
///   or not.
public struct SpeakerPowerMachine: Equatable, Sendable {
    public enum State: Equatable, Sendable {
        /// Built, never started (before `.open`).
        case closed
        /// A start (or wake) is under way; its outcome comes back as
        /// `.started` or `.failed`. `forInput`: an input asked for it and
        /// joins next, so the speaker does not count as idle once started.
        case starting(forInput: Bool)
        case awake
        /// The sink is held open and paused; the rest of the graph is stopped.
        case asleep
        /// The sink or the mixer failed; the next input starts it again.
        case failed(problem: String)
    }

    public enum Event: Equatable, Sendable {
        /// The speaker's graph is built: run it.
        case open
        /// An input (a sound, the ringtone, a call) is about to join: the
        /// speaker must run before it links.
        case inputJoining
        /// The input is linked to the mixer and counts as playing.
        case inputJoined
        /// The input could not be linked; it does not count.
        case inputRefused
        /// A playing input left (ended, stopped, or dropped after an error).
        case inputLeft
        /// The idle timer of `startIdleTimer` fired.
        case idleTimerFired
        /// The graph started (after `.start` or `.wake`).
        case started
        /// A start failed, or the sink or mixer reported an error; `problem`
        /// is what to tell the user.
        case failed(problem: String)
    }

    public enum Action: Equatable, Sendable {
        /// Start the graph from stopped (when it opens, or again after a
        /// failure); report `.started` or `.failed`.
        case start
        /// Start the graph from sleep; report `.started` or `.failed`.
        case wake
        /// Put the graph to sleep: the sink held open and paused, the rest stopped.
        case sleep
        /// Stop the whole graph after a failure.
        case stop
        /// Tell the user why the speaker does not play.
        case report(problem: String)
        /// (Re)start the idle timer; it comes back as `.idleTimerFired`.
        case startIdleTimer(seconds: Double)
        case cancelIdleTimer
    }

    /// How long the speaker runs with nothing to play before it sleeps.
    public let idleSeconds: Double
    public private(set) var state = State.closed
    /// The inputs that joined and have not left.
    public private(set) var playing = 0
    /// Whether the idle timer runs (between `startIdleTimer` and its firing or cancelling).
    public private(set) var idleTimerRunning = false

    public init(idleSeconds: Double = 1) {
        self.idleSeconds = idleSeconds
    }

    /// Why the speaker does not play, while it has failed.
    public var problem: String? {
        if case .failed(let problem) = state { return problem }
        return nil
    }

    public var isAsleep: Bool { state == .asleep }

    public mutating func handle(_ event: Event) -> [Action] {
        switch event {
        case .open:
            guard state == .closed else { return [] }
            state = .starting(forInput: false)
            return [.start]

        case .inputJoining:
            switch state {
            case .closed, .failed:
                state = .starting(forInput: true)
                return [.start]
            case .asleep:
                state = .starting(forInput: true)
                return [.wake]
            case .starting:
                return []
            case .awake:
                return cancelIdleTimer()
            }

        case .inputJoined:
            playing += 1
            return cancelIdleTimer()

        case .inputRefused:
            return idleIfNothingPlays()

        case .inputLeft:
            playing = max(0, playing - 1)
            return idleIfNothingPlays()

        case .idleTimerFired:
            // A timer cancelled just as it fired is no reason to sleep.
            guard idleTimerRunning else { return [] }
            idleTimerRunning = false
            guard state == .awake, playing == 0 else { return [] }
            state = .asleep
            return [.sleep]

        case .started:
            guard case .starting(let forInput) = state else { return [] }
            state = .awake
            return forInput ? [] : idleIfNothingPlays()

        case .failed(let problem):
            if case .failed = state { return [.stop] }
            let cancel = cancelIdleTimer()
            state = .failed(problem: problem)
            return cancel + [.stop, .report(problem: problem)]
        }
    }

    private mutating func cancelIdleTimer() -> [Action] {
        guard idleTimerRunning else { return [] }
        idleTimerRunning = false
        return [.cancelIdleTimer]
    }

    /// Awake with nothing to play: the idle timer starts (unless it runs).
    private mutating func idleIfNothingPlays() -> [Action] {
        guard state == .awake, playing == 0, !idleTimerRunning else { return [] }
        idleTimerRunning = true
        return [.startIdleTimer(seconds: idleSeconds)]
    }
}
