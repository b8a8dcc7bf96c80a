import XCTest
@testable import C1nkAnswerer
@testable import C1nkCall
@testable import C1nkGLib
@testable import C1nkSignaling

/// An answerer on an in-memory signaller, scripted media and a manual clock,
/// started and connected: the logic of a call with no socket, no webrtcbin
/// and no sleeps. Time moves only when a test advances `clock`.
final class ScriptedAnswerer {
    let signaller = InMemorySignaller()
    let media = ScriptedCallMedia.Factory()
    let events = EventLog()
    let clock = ManualClock()
    let answerer: Answerer

    init(_ configure: (inout Answerer.Options) -> Void = { _ in }) {
        answerer = Answerer(signaller: signaller, options: CallHarness.answererOptions(configure), events: events,
                            makeMedia: media.make, clock: clock)
        answerer.start()
        signaller.connect()
    }

    var kinds: [CallEvent.Kind] { events.events.map(\.event.kind) }
    func last(_ kind: CallEvent.Kind) -> CallEvent? { events.events.last { $0.event.kind == kind }?.event }
    func count(_ kind: CallEvent.Kind) -> Int { events.events.filter { $0.event.kind == kind }.count }

    /// Rings `callId` from `door`, takes the door's offer and sends our answer: the call is ringing with media.
    @discardableResult
    func ringWithMedia(_ callId: String = "c1", door: String) throws -> ScriptedCallMedia {
        signaller.receive(.incoming(callId: callId, doorName: door))
        signaller.receive(.joinOk(callId: callId))
        signaller.receive(.offer(callId: callId, sdp: "v=0 offer"))
        let session = try XCTUnwrap(media.latest)
        session.answer()
        return session
    }
}
