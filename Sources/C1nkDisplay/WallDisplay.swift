import C1nkCall
import C1nkGLib
import C1nkSpeaker
import FoundationEssentials

/// The wall display: follows the answerer's events with a `DisplayMachine`,
/// paints a new picture only when what it shows changes (and once a minute
/// for the clock), and turns touches and keys into answerer commands.
///
/// Everything here runs on the main context.
public final class WallDisplay {
    public struct Options: Equatable, Sendable {
        /// "BYTOVÝ DOM · HLAVNÁ 25".
        public var building = "BYTOVÝ DOM"
        public var reduceMotion = false
        public var width = 1280
        public var height = 800
        public var framesPerSecond = 30
        /// Show each display frame at once (`sync=false`; `--video-sync` turns it off).
        public var renderImmediately = true
        public init() {}
    }

    /// Where a call sends its video: the `{sink}` of the call's pipeline.
    public var callSink: String { pipeline.callSink }
    /// An answerer command (`accept`, `reject`, `open`, `hangup`, `mute`, `unmute`).
    public var onCommand: ((String) -> Void)?
    /// A sound to play.
    public var onSound: ((SpeakerSound) -> Void)?

    let pipeline: DisplayPipeline
    private(set) var machine = DisplayMachine()
    private(set) var scene = DisplayScene()
    private(set) var layout: ScreenLayout
    /// Pictures painted so far (one per change of scene).
    private(set) var paints = 0

    private let history: RingHistory?
    private let clock: any TimerClock
    private let date: () -> Date
    private var timers: [DisplayMachine.Timer: any ScheduledTimer] = [:]
    private var clockTimer: (any ScheduledTimer)?
    private var openRequestedAt: Double?

    /// How many of the latest rings the home screen lists, newest first.
    static let historyRows = 8
    /// How long after an open request (seconds) a server error counts as the
    /// server refusing the open.
    static let openRefusalWindow = 10.0

    /// Starts the display on `sink` (an element name or a bin description,
    /// as `--sink`) with home on it: the building, the clock and the latest
    /// rings of `history`. `clock` runs the display's timers and `date` tells
    /// the time it shows (both replaceable for tests).
    public init(sink: String, options: Options, history: RingHistory? = nil, clock: any TimerClock = GLibClock.shared,
                date: @escaping () -> Date = { Date() }) throws {
        self.history = history
        self.clock = clock
        self.date = date
        try ScreenLibraries.load()
        pipeline = try DisplayPipeline(sink: sink, width: options.width, height: options.height, framesPerSecond: options.framesPerSecond,
                                       renderImmediately: options.renderImmediately, clock: clock)
        scene.building = options.building
        scene.reduceMotion = options.reduceMotion
        layout = ScreenLayout(scene: scene, width: pipeline.width, height: pipeline.height)
        pipeline.onNavigation = { [weak self] input in self?.receive(input) }
        // Home is painted and handed over before the pipeline runs: it is the first frame.
        refresh(force: true)
        try pipeline.start()
        scheduleClock()
    }

    public func stop() {
        timers.removeAll()
        clockTimer = nil
        pipeline.stop()
    }

    // MARK: - Events in

    /// An event of the answerer, as the events log has it.
    public func event(_ event: CallEvent) {
        switch event {
        case .connected, .registered: handle(.connection(true))
        case .disconnected, .connectFailed: handle(.connection(false))
        case .ringing(_, let doorName): handle(.ringing(door: doorName))
        case .mediaConnected: handle(.mediaConnected)
        case .firstFrame: handle(.firstFrame)
        case .accepted: handle(.accepted)
        case .doorOpened:
            openRequestedAt = nil
            handle(.doorOpened)
        case .error:
            // The server refusing an open shows on the button, briefly.
            if let asked = openRequestedAt, clock.now - asked < Self.openRefusalWindow {
                openRequestedAt = nil
                handle(.doorOpenFailed)
            }
        case .ended(_, let reason, _, _, _): handle(.ended(reason: reason))
        case .missed, .videoStalled, .videoResumed, .doorOpenFailed, .recording, .recorded, .snapshot, .decoder, .levels, .measurements, .mainLoop, .deleted, .reloaded, .sipRegistered, .sipRinging, .sipAnswered: break
        }
    }

    /// The microphone's mute state changed (from any input).
    public func microphoneMuted(_ muted: Bool) { handle(.muted(muted)) }

    /// The ring history changed.
    public func historyChanged() { refresh() }

    func handle(_ event: DisplayMachine.Event) {
        for action in machine.handle(event) {
            switch action {
            case .startTimer(let timer):
                timers[timer] = clock.schedule(after: timer.seconds) { [weak self] in self?.handle(.timeout(timer)) }
            case .cancelTimer(let timer):
                timers[timer] = nil
            case .play(let sound):
                onSound?(sound)
            }
        }
        refresh()
    }

    // MARK: - Input

    /// Input from a sink's navigation events or an input device.
    public func receive(_ input: NavigationInput) {
        switch input {
        case let .press(x, y): press(x: x, y: y)
        case .key(let name): key(name)
        }
    }

    /// A touch or click at display pixel (x, y): the button drawn there.
    func press(x: Double, y: Double) {
        guard let control = layout.control(atX: x, y: y) else { return }
        perform(control)
    }

    /// A key by name ("Return", "a", "Escape" …).
    func key(_ name: String) {
        guard let control = KeyCommand.control(forKey: name, muted: isMuted) else { return }
        perform(control)
    }

    private var isMuted: Bool {
        if case .inCall(let call) = machine.screen { return call.muted }
        return false
    }

    private func perform(_ control: ScreenLayout.Control) {
        onSound?(.click)
        if control == .open { openRequestedAt = clock.now }
        onCommand?(control.rawValue)
    }

    // MARK: - Painting

    /// Paints and shows the scene if it changed since the last picture.
    private func refresh(force: Bool = false) {
        var next = scene
        next.screen = machine.screen
        next.connected = machine.connected
        let now = date()
        next.clock = DisplayClock.time(now)
        next.date = DisplayClock.day(now)
        next.history = machine.screen == .idle ? (history?.latest(Self.historyRows) ?? []).map { $0.row(now: now) } : []
        guard force || next != scene else { return }
        scene = next
        layout = ScreenLayout(scene: scene, width: pipeline.width, height: pipeline.height)
        pipeline.show(layout, layers: ScreenPainter.paint(layout))
        paints += 1
    }

    /// Repaints when the next minute starts (the clock), and again each minute.
    private func scheduleClock() {
        clockTimer = clock.schedule(after: DisplayClock.secondsToNextMinute(date())) { [weak self] in
            self?.refresh()
            self?.scheduleClock()
        }
    }
}
