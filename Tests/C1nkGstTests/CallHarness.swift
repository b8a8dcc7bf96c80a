import XCTest
@testable import C1nkAnswerer
@testable import C1nkDoor
@testable import C1nkGLib
@testable import C1nkLocal
@testable import C1nkMedia
@testable import C1nkSignaling

/// A local server, a simulated door and an answerer in this process, all on
/// loopback: real webrtcbin calls with no network but 127.0.0.1.
final class CallHarness {
    let server: SignalServer
    let door: SimulatedDoor
    var doorEvents: [SimulatedDoor.Event] = []
    private(set) var answerers: [(answerer: Answerer, client: SignalClient, events: EventLog)] = []

    var answerer: Answerer { answerers[0].answerer }
    var client: SignalClient { answerers[0].client }
    var events: EventLog { answerers[0].events }

    static func answererOptions(_ configure: (inout Answerer.Options) -> Void = { _ in }) -> Answerer.Options {
        var options = Answerer.Options()
        options.media = MediaSessionTests.testConfiguration()
        options.ringtone = nil
        configure(&options)
        return options
    }

    /// `clock`: the answerers' timers (a `ManualClock` for a test that moves them itself).
    init(codec: DoorMediaSession.VideoCodec = .vp8, answerers count: Int = 1,
         clock: any TimerClock = GLibClock.shared,
         door doorConfigure: (inout DoorMediaSession.Options) -> Void = { _ in },
         makeMedia: @escaping CallMediaFactory = AnswerSession.factory,
         configure: (inout Answerer.Options) -> Void = { _ in }) throws {
        Log.echoToStandardError = false
        server = try SignalServer()
        var doorOptions = SimulatedDoor.Options(serverURL: server.url)
        doorOptions.media.codec = codec
        doorOptions.media.ice = .loopback
        doorConfigure(&doorOptions.media)
        door = try SimulatedDoor(doorOptions)
        door.onEvent = { [unowned self] in self.doorEvents.append($0) }
        door.start()
        for _ in 0..<count {
            let client = try makeClient(server.url, timing: SignalTiming(pingInterval: 25, pongTimeout: 40, initialBackoff: 0.1, maximumBackoff: 1))
            let events = EventLog()
            let answerer = Answerer(signaller: client, options: Self.answererOptions(configure), events: events,
                                    makeMedia: makeMedia, clock: clock)
            answerer.start()
            answerers.append((answerer, client, events))
        }
        waitUntil("door and answerers connected") { self.door.isReady && self.server.connectedAppIds.count == count }
    }

    func names(_ index: Int = 0) -> [String] {
        answerers[index].events.written.compactMap { $0["event"] as? String }
    }

    func callEvents(_ index: Int = 0) -> [String] {
        names(index).filter { !["connected", "registered", "disconnected", "connect-failed", "levels"].contains($0) }
    }

    func lastEvent(_ name: String, _ index: Int = 0) -> [String: Any]? {
        answerers[index].events.written.last { $0["event"] as? String == name }
    }

    func count(_ name: String, _ index: Int = 0) -> Int { names(index).filter { $0 == name }.count }

    func stop() {
        for entry in answerers { entry.answerer.shutdown() }
        door.stop()
        server.stop()
        MainContext.spin(0.1)
        Log.echoToStandardError = true
    }
}
