@testable import C1nkAnswerer
@testable import C1nkCall
@testable import C1nkGLib
@testable import C1nkLocal
@testable import C1nkProtocol
@testable import C1nkSignaling

/// The local server's `CallRouter` wired to answerers through in-memory
/// signallers; the test plays the door. No sockets, and no timers run: the
/// router's timers are kept in `timers` for the test to fire, and the
/// answerers' run on `clock`, which moves only when the test advances it.
final class InMemoryServer {
    struct App {
        let answerer: Answerer
        let signaller: InMemorySignaller
        let media: ScriptedCallMedia.Factory
        let events: EventLog
        func last(_ kind: CallEvent.Kind) -> CallEvent? { events.events.last { $0.event.kind == kind }?.event }
        var kinds: [CallEvent.Kind] { events.events.map(\.event.kind) }
    }

    let doorId = "door-1"
    private(set) var router = CallRouter(ids: .counted())
    private(set) var apps: [String: App] = [:]
    /// What the router sent the door, in order.
    private(set) var toDoor: [ServerToDoorMessage] = []
    private(set) var timers: Set<CallRouter.Timer> = []
    /// Every answerer's clock.
    let clock = ManualClock()
    private var pending: [CallRouter.Event] = []
    private var draining = false

    init(doorName: String) {
        deliver(.doorConnected(doorId: doorId, doorName: doorName))
    }

    /// An answerer for `deviceId`, started and connected.
    @discardableResult
    func addAnswerer(_ deviceId: String) -> App {
        let signaller = InMemorySignaller()
        let media = ScriptedCallMedia.Factory()
        let events = EventLog()
        let answerer = Answerer(signaller: signaller, options: CallHarness.answererOptions(), events: events,
                                makeMedia: media.make, clock: clock)
        signaller.onSend = { [unowned self] intent in self.deliver(.fromApp(deviceId: deviceId, ClientMessage(intent))) }
        let app = App(answerer: answerer, signaller: signaller, media: media, events: events)
        apps[deviceId] = app
        answerer.start()
        connect(deviceId)
        return app
    }

    /// The app's socket opens: its `hello` reaches the router before what it sends next.
    func connect(_ deviceId: String) {
        guard let app = apps[deviceId] else { return }
        inOneTurn {
            pending.append(.appConnected(deviceId: deviceId))
            app.signaller.connect(deviceId: deviceId, answeringHello: false)
        }
    }

    func drop(_ deviceId: String) {
        inOneTurn {
            apps[deviceId]?.signaller.drop("dropped")
            pending.append(.appDisconnected(deviceId: deviceId))
        }
    }

    /// The door says something.
    func door(_ message: DoorMessage) { deliver(.fromDoor(doorId: doorId, message)) }

    func fire(_ timer: CallRouter.Timer) { deliver(.timeout(timer)) }

    // MARK: - Routing, one event at a time

    private func deliver(_ event: CallRouter.Event) {
        inOneTurn { pending.append(event) }
    }

    /// Runs `body`, then routes what it and every answer to it queued, in
    /// order: an answerer that sends while receiving does not re-enter the router.
    private func inOneTurn(_ body: () -> Void) {
        let outermost = !draining
        draining = true
        body()
        guard outermost else { return }
        while !pending.isEmpty {
            let event = pending.removeFirst()
            for action in router.handle(event) { perform(action) }
        }
        draining = false
    }

    private func perform(_ action: CallRouter.Action) {
        switch action {
        case let .toApp(deviceId, message): apps[deviceId]?.signaller.receive(message)
        case let .toDoor(_, message): toDoor.append(message)
        case .errorToDoor: break
        case .startTimer(let timer, _): timers.insert(timer)
        case .cancelTimer(let timer): timers.remove(timer)
        case .log: break
        }
    }
}
