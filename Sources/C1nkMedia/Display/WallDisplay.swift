import C1nkGLib
import Foundation

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

    public let pipeline: DisplayPipeline
    /// An answerer command (`accept`, `reject`, `open`, `hangup`, `mute`, `unmute`).
    public var onCommand: ((String) -> Void)?
    /// A sound of seed §9.7 to play.
    public var onSound: ((DisplayMachine.Sound) -> Void)?
    /// The last rings, newest first (the home screen's list).
    public var history: () -> [RingHistory.Entry] = { [] }
    /// The clock, replaceable for screenshots.
    public var now: () -> Date = { Date() }

    public private(set) var machine = DisplayMachine()
    public private(set) var scene = DisplayScene()
    public private(set) var layout: ScreenLayout
    /// Pictures painted so far (one per change of scene).
    public private(set) var paints = 0

    private let options: Options
    private var timers: [DisplayMachine.Timer: GLibTimer] = [:]
    private var clockTimer: GLibTimer?
    private var openRequestedAt: Double?

    public init(sink: String, options: Options) throws {
        self.options = options
        pipeline = try DisplayPipeline(sink: sink, width: options.width, height: options.height, framesPerSecond: options.framesPerSecond,
                                       renderImmediately: options.renderImmediately)
        scene.building = options.building
        scene.reduceMotion = options.reduceMotion
        layout = ScreenLayout(scene: scene, width: pipeline.width, height: pipeline.height)
        pipeline.onNavigation = { [weak self] input in self?.navigation(input) }
        refresh(force: true)
        scheduleClock()
    }

    public func stop() {
        timers.removeAll()
        clockTimer = nil
        pipeline.stop()
    }

    // MARK: - Events in

    /// An event of the answerer (as in the events file).
    public func event(_ name: String, _ fields: [String: Any]) {
        switch name {
        case "connected", "registered": handle(.connection(true))
        case "disconnected", "connect-failed": handle(.connection(false))
        case "ringing": handle(.ringing(door: fields["doorName"] as? String ?? ""))
        case "media-connected": handle(.mediaConnected)
        case "first-frame": handle(.firstFrame)
        case "accepted": handle(.accepted)
        case "door-opened":
            openRequestedAt = nil
            handle(.doorOpened)
        case "error":
            // The server refusing an open shows on the button, briefly.
            if let asked = openRequestedAt, MainContext.monotonicSeconds() - asked < 10 {
                openRequestedAt = nil
                handle(.doorOpenFailed)
            }
        case "ended": handle(.ended(reason: fields["reason"] as? String ?? ""))
        default: break
        }
    }

    /// The microphone's mute state changed (from any input).
    public func microphoneMuted(_ muted: Bool) { handle(.muted(muted)) }

    /// The ring history changed.
    public func historyChanged() { refresh() }

    public func handle(_ event: DisplayMachine.Event) {
        for action in machine.handle(event) {
            switch action {
            case .startTimer(let timer):
                timers[timer] = GLibTimer(after: timer.seconds) { [weak self] in self?.handle(.timeout(timer)) }
            case .cancelTimer(let timer):
                timers[timer] = nil
            case .play(let sound):
                onSound?(sound)
            }
        }
        refresh()
    }

    // MARK: - Input

    /// A touch or click at display pixel (x, y): the button drawn there.
    public func press(x: Double, y: Double) {
        guard let control = layout.control(atX: x, y: y) else { return }
        perform(control)
    }

    /// A key by name ("Return", "a", "Escape" …).
    public func key(_ name: String) {
        guard let control = KeyCommand.control(forKey: name, muted: isMuted) else { return }
        perform(control)
    }

    private var isMuted: Bool {
        if case .inCall(let call) = machine.screen { return call.muted }
        return false
    }

    private func perform(_ control: ScreenLayout.Control) {
        onSound?(.click)
        if control == .open { openRequestedAt = MainContext.monotonicSeconds() }
        onCommand?(control.rawValue)
    }

    /// Input from a sink's navigation events or an input device.
    public func receive(_ input: NavigationInput) { navigation(input) }

    private func navigation(_ input: NavigationInput) {
        switch input {
        case let .press(x, y): press(x: x, y: y)
        case .key(let name): key(name)
        }
    }

    // MARK: - Painting

    /// Paints and shows the scene if it changed since the last picture.
    private func refresh(force: Bool = false) {
        var next = scene
        next.screen = machine.screen
        next.connected = machine.connected
        let date = now()
        next.clock = DisplayClock.time(date)
        next.date = DisplayClock.day(date)
        next.history = machine.screen == .idle ? history().prefix(8).map { $0.row(now: date) } : []
        guard force || next != scene else { return }
        scene = next
        layout = ScreenLayout(scene: scene, width: pipeline.width, height: pipeline.height)
        pipeline.show(layout, layers: ScreenPainter.paint(layout))
        paints += 1
    }

    private func scheduleClock() {
        clockTimer = GLibTimer(after: DisplayClock.secondsToNextMinute(now())) { [weak self] in
            self?.refresh()
            self?.scheduleClock()
        }
    }
}
