import C1nkCall
import C1nkGLib
import C1nkMedia
import C1nkSignaling

/// Answers the door: feeds the signaller's events and the user's commands
/// into the call state machine, and performs the actions it returns with a
/// media session, a ringtone, timers and the events log (typed `CallEvent`s).
///
/// It takes any `Signaller` (the libsoup `SignalClient`, or `InMemorySignaller`
/// in tests), any `CallMediaFactory` (`AnswerSession.factory` by default) and
/// any `TimerClock` (`GLibClock.shared` by default; a test's `ManualClock`
/// moves the call's timers without waiting for them).
///
/// The work is split by what drives it: the signaller's events
/// (`Answerer+SignalEvents.swift`), the user's commands (`+Commands`), the
/// machine's actions and timers (`+Actions`), the events it reports
/// (`+Events`) and the media session's callbacks (`+Media`).
///
/// Everything here runs on the main context (see `MainContext`).
public final class Answerer {
    public internal(set) var endedCalls = 0
    public internal(set) var lastCall = CallFigures()
    /// True once `exitAfterCalls` calls have ended.
    public internal(set) var isFinished = false
    public var currentCallId: String? { machine.call?.callId }
    public var currentSession: AnswerSession? { session as? AnswerSession }
    /// The media of the call in progress, whatever made it.
    public var currentMedia: (any CallMedia)? { session }
    /// The call's timers running now (diagnostics and tests).
    public var runningTimers: Set<CallMachine.Timer> { Set(machineTimers.keys) }
    /// Sees every action of the call state machine as it is performed (the
    /// wall display follows the microphone's mute this way).
    public var onAction: ((CallMachine.Action) -> Void)?
    /// The process's one speaker: ringtone, sounds (`speaker?.play(.click)`)
    /// and every call's audio. Nil only if `--audio-sink` cannot be built.
    public let speaker: SpeakerOutput?
    /// Where every timer of the answerer comes from, and the time of the call's figures.
    public let clock: any TimerClock
    /// The machine's call slots (`--max-calls`); nil: no limit.
    public var capacity: (any CallCapacity)?

    let signaller: any Signaller
    let makeMedia: CallMediaFactory
    /// Changed by a reload (SIGHUP); a call in progress keeps what it started with.
    public var options: Options
    let events: EventLog
    let log = Log.answerer
    var machine = CallMachine()
    var session: (any CallMedia)?
    var ringtone: Ringtone?
    /// The state machine's timers for the call in progress.
    var machineTimers: [CallMachine.Timer: any ScheduledTimer] = [:]
    /// Scripting timers (auto answer, --open-door-after, --hangup-after), per call.
    var callTimers: [String: [any ScheduledTimer]] = [:]
    var levelsTimer: (any ScheduledTimer)?
    /// Whether the call's picture stands still (`Answerer+VideoStall.swift`).
    var videoStall = VideoStallWatch()
    var videoStallTimer: (any ScheduledTimer)?
    var hasConnectedBefore = false
    /// Sessions stopped and still finishing (a recording being finalised).
    var finishing: [ObjectIdentifier: any CallMedia] = [:]
    /// Recording files announced with a `recording` event and not yet `recorded`.
    var recordingAnnounced: Set<String> = []
    /// The user's mute, kept across the sessions of one call (a re-offer
    /// builds a new one) and settable while ringing.
    var microphoneMuted = false
    /// The call slot the call in progress holds.
    var heldSlot: (any CallSlot)?
    /// `--measure`: the main context's lateness over the current call (`Answerer+MainLoopWatch.swift`).
    var mainLoopWatch: MainLoopWatch?
    /// Returns the heap's free pages to the system after each call's teardown.
    let heapTrim = HeapTrim()

    public init(signaller: any Signaller, options: Options, events: EventLog,
                makeMedia: @escaping CallMediaFactory = AnswerSession.factory,
                clock: any TimerClock = GLibClock.shared) {
        self.signaller = signaller
        self.makeMedia = makeMedia
        self.options = options
        self.events = events
        self.clock = clock
        do {
            speaker = try SpeakerOutput(sink: options.media.audioSink, volume: options.speakerVolume,
                                        callLatencyMilliseconds: options.media.latencyMilliseconds)
        } catch {
            speaker = nil
            Log.callMedia.warning("the speaker: \(error)")
        }
        WebRTCBin.warmUp()
        AnswerSession.prepareStandby(configuration: options.media)
        heapTrim.isQuiet = { [weak self] in
            guard let self else { return true }
            return self.session == nil && self.finishing.isEmpty && self.machine.call == nil
        }
        if let problem = speaker?.problem { events.emit(.error(message: problem)) }
        speaker?.onProblem = { [weak self] problem in
            self?.events.emit(.error(callId: self?.machine.call?.callId, message: problem))
        }
    }

    public func start() {
        signaller.onEvent = { [weak self] event in self?.signalEvent(event) }
        signaller.start()
    }

    /// Ends a call in progress (`hangup`, or `reject` while ringing) and stops.
    public func shutdown() {
        handle(.shutdown)
        MainContext.run(timeout: 5) { finishing.isEmpty }
        // Let the last message leave before the socket closes.
        MainContext.spin(0.2)
        signaller.stop()
        AnswerSession.discardStandby()
    }
}
