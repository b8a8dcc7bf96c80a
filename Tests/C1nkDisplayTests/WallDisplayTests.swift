import C1nkCall
import C1nkGLib
import C1nkSpeaker
import Foundation
import XCTest
@testable import C1nkDisplay

/// The display following the answerer's typed events, its timers on a
/// `ManualClock`: time moves when the test says, so "not yet" is a fact,
/// not a sleep. The pipeline is real (a fakesink).
final class WallDisplayTests: XCTestCase {
    let clock = ManualClock()
    /// The time the display shows.
    var date = Date(timeIntervalSince1970: 1_800_000_000)

    func makeDisplay(history: RingHistory? = nil) throws -> WallDisplay {
        Log.echoToStandardError = false
        var options = WallDisplay.Options()
        (options.width, options.height) = (320, 240)
        return try WallDisplay(sink: "fakesink", options: options, history: history, clock: clock, date: { [unowned self] in self.date })
    }

    func ring(_ display: WallDisplay, accept: Bool = true) {
        display.event(.registered(deviceId: "d"))
        display.event(.ringing(callId: "c", doorName: "Dvor"))
        if accept { display.event(.accepted(callId: "c")) }
    }

    func testTheAnswerersEventsDriveTheScreens() throws {
        let display = try makeDisplay()
        defer { display.stop() }
        display.event(.connected(server: "wss://example"))
        XCTAssertTrue(display.machine.connected)
        display.event(.connectFailed(reason: "refused", retryIn: 1))
        XCTAssertFalse(display.machine.connected)
        display.event(.registered(deviceId: "d"))
        XCTAssertTrue(display.machine.connected)
        display.event(.ringing(callId: "c", doorName: "Hlavný vchod"))
        XCTAssertEqual(display.machine.screen, .ringing(door: "Hlavný vchod", preview: false))
        display.event(.mediaConnected(callId: "c", sinceRingMs: 120))
        display.event(.firstFrame(callId: "c", sinceRingMs: 300))
        XCTAssertEqual(display.machine.screen, .ringing(door: "Hlavný vchod", preview: true))
        display.event(.accepted(callId: "c"))
        XCTAssertEqual(display.machine.screen, .inCall(.init(door: "Hlavný vchod", picture: .showing)))
        display.event(.doorOpened(callId: "c"))
        XCTAssertEqual(display.machine.screen, .inCall(.init(door: "Hlavný vchod", picture: .showing, notice: .unlocked)))
        // Events the display has nothing to show for change nothing.
        let before = display.machine
        for event: CallEvent in [.levels(callId: "c", door: -20, resident: -30, muted: false), .recording(callId: "c", path: "/r"),
                                 .missed(callId: "m", doorName: "Dvor", reason: "busy"),
                                 .error(message: "unrelated"), .deleted(path: "/old", reason: "age"),
                                 .reloaded(applied: [], needsRestart: [])] {
            display.event(event)
        }
        XCTAssertEqual(display.machine, before)
        display.event(.ended(callId: "c", reason: .remote, doorName: "Hlavný vchod"))
        XCTAssertEqual(display.machine.screen, .ended(door: "Hlavný vchod", reason: .remote))
        display.event(.disconnected(reason: "closed"))
        XCTAssertFalse(display.machine.connected)
    }

    func testTheEndScreenGoesHomeAfterThreeSeconds() throws {
        let display = try makeDisplay()
        defer { display.stop() }
        var sounds: [SpeakerSound] = []
        display.onSound = { sounds.append($0) }
        ring(display)
        display.event(.ended(callId: "c", reason: .hangup, doorName: "Dvor"))
        XCTAssertEqual(sounds, [.ended])
        clock.advance(by: 2.99)
        XCTAssertEqual(display.machine.screen, .ended(door: "Dvor", reason: .hangup))
        clock.advance(by: 0.01)
        XCTAssertEqual(display.machine.screen, .idle)
    }

    func testBezObrazuAfterThreeSecondsWithoutAFrame() throws {
        let display = try makeDisplay()
        defer { display.stop() }
        ring(display)
        clock.advance(by: 2.99)
        XCTAssertEqual(display.machine.screen, .inCall(.init(door: "Dvor", picture: .waiting)))
        clock.advance(by: 0.01)
        XCTAssertEqual(display.machine.screen, .inCall(.init(door: "Dvor", picture: .none)))
        display.event(.firstFrame(callId: "c"))
        XCTAssertEqual(display.machine.screen, .inCall(.init(door: "Dvor", picture: .showing)))
    }

    func testAFrameInTimeCancelsBezObrazu() throws {
        let display = try makeDisplay()
        defer { display.stop() }
        ring(display)
        display.event(.firstFrame(callId: "c"))
        clock.advance(by: 10)
        XCTAssertEqual(display.machine.screen, .inCall(.init(door: "Dvor", picture: .showing)))
    }

    func testOdomknuteForTwoAndAHalfSeconds() throws {
        let display = try makeDisplay()
        defer { display.stop() }
        ring(display)
        display.event(.firstFrame(callId: "c"))
        display.event(.doorOpened(callId: "c"))
        clock.advance(by: 2.49)
        XCTAssertEqual(display.machine.screen, .inCall(.init(door: "Dvor", picture: .showing, notice: .unlocked)))
        clock.advance(by: 0.01)
        XCTAssertEqual(display.machine.screen, .inCall(.init(door: "Dvor", picture: .showing)))
    }

    /// An error within 10 s of the open button is the server refusing the
    /// open; later, or without an open, it is not.
    func testAnErrorSoonAfterAnOpenShowsTheRefusal() throws {
        let display = try makeDisplay()
        defer { display.stop() }
        var commands: [String] = []
        display.onCommand = { commands.append($0) }
        ring(display)
        display.event(.firstFrame(callId: "c"))
        display.event(.error(message: "server: no"))
        XCTAssertEqual(display.machine.screen, .inCall(.init(door: "Dvor", picture: .showing)), "no open asked")

        display.key("o")
        XCTAssertEqual(commands, ["open"])
        clock.advance(by: 9.9)
        display.event(.error(callId: "c", message: "server: refused"))
        XCTAssertEqual(display.machine.screen, .inCall(.init(door: "Dvor", picture: .showing, notice: .failed)))
        clock.advance(by: 2.5)
        XCTAssertEqual(display.machine.screen, .inCall(.init(door: "Dvor", picture: .showing)))
        display.event(.error(message: "server: again"))
        XCTAssertEqual(display.machine.screen, .inCall(.init(door: "Dvor", picture: .showing)), "one refusal per open")

        display.key("o")
        clock.advance(by: WallDisplay.openRefusalWindow + 0.01)
        display.event(.error(message: "server: late"))
        XCTAssertEqual(display.machine.screen, .inCall(.init(door: "Dvor", picture: .showing)), "too late to be the open's")
    }

    /// The clock repaints when the minute changes, and only then.
    func testTheClockRepaintsAtTheMinute() throws {
        date = Date(timeIntervalSince1970: 1_800_000_030) // 30 s into a minute
        let display = try makeDisplay()
        defer { display.stop() }
        let paints = display.paints
        let shown = display.scene.clock
        date += 29
        clock.advance(by: 29)
        XCTAssertEqual(display.paints, paints)
        date += 1.05
        clock.advance(by: 1.05)
        XCTAssertEqual(display.paints, paints + 1)
        XCTAssertNotEqual(display.scene.clock, shown)
        date += 60.1
        clock.advance(by: 60.1)
        XCTAssertEqual(display.paints, paints + 2, "and each minute after")
    }

    /// Home lists the history's latest eight rings, newest first, and
    /// follows it as rings are added.
    func testHomeListsTheLatestEightRingsNewestFirst() throws {
        let history = RingHistory(path: temporaryDirectory() + "/c1nk/history.jsonl")
        let t = Int64(date.timeIntervalSince1970 * 1000)
        for index in 0..<10 { history.append(.init(t: t - Int64(10 - index) * 60_000, door: "Door \(index)", outcome: .missed)) }
        let display = try makeDisplay(history: history)
        defer { display.stop() }
        XCTAssertEqual(display.scene.history.map(\.subtitle), (2..<10).reversed().map { "Door \($0) · zmeškané" })
        history.append(.init(t: t, door: "Door 10", outcome: .answered))
        display.historyChanged()
        XCTAssertEqual(display.scene.history.first?.subtitle, "Door 10 · prijaté")
        XCTAssertEqual(display.scene.history.count, 8)
    }

    func testKeysAndTouchesBecomeCommands() throws {
        let display = try makeDisplay()
        defer { display.stop() }
        var commands: [String] = []
        var sounds: [SpeakerSound] = []
        display.onCommand = { commands.append($0) }
        display.onSound = { sounds.append($0) }
        ring(display, accept: false)
        let accept = try XCTUnwrap(display.layout.frame(of: .accept))
        display.receive(.press(x: accept.midX, y: accept.midY))
        display.receive(.press(x: 1, y: 1))
        display.receive(.key("Escape"))
        display.receive(.key("q"))
        display.microphoneMuted(true) // not in a call: nothing to show
        display.event(.accepted(callId: "c"))
        display.microphoneMuted(true)
        display.receive(.key("m"))
        XCTAssertEqual(commands, ["accept", "reject", "unmute"])
        XCTAssertEqual(sounds, [.click, .click, .click])
    }
}
