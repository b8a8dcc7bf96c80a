import XCTest
@testable import C1nkDisplay

/// The display's state machine, with no GStreamer and no clock.
final class DisplayMachineTests: XCTestCase {
    typealias M = DisplayMachine

    static let allEvents: [M.Event] = [
        .connection(true), .connection(false), .ringing(door: "Hlavný vchod"), .mediaConnected, .firstFrame, .accepted,
        .doorOpened, .doorOpenFailed, .muted(true), .muted(false), .ended(reason: .hangup), .ended(reason: .noConnection),
        .timeout(.noPicture), .timeout(.doorNotice), .timeout(.endScreen),
    ]

    func run(_ events: [M.Event]) -> (M, [M.Action]) {
        var machine = M()
        var actions: [M.Action] = []
        for event in events { actions += machine.handle(event) }
        return (machine, actions)
    }

    func testPreviewThenAcceptShowsTheVideo() {
        let (machine, _) = run([.ringing(door: "Dvor"), .mediaConnected, .firstFrame])
        XCTAssertEqual(machine.screen, .ringing(door: "Dvor", preview: true))
        var next = machine
        XCTAssertEqual(next.handle(.accepted), [])
        XCTAssertEqual(next.screen, .inCall(.init(door: "Dvor", picture: .showing)))
    }

    func testNoFrameWithinThreeSecondsIsBezObrazuAndVideoReplacesIt() {
        var (machine, actions) = run([.ringing(door: "Dvor"), .mediaConnected])
        XCTAssertEqual(actions.last, .startTimer(.noPicture))
        XCTAssertEqual(M.Timer.noPicture.seconds, 3)
        _ = machine.handle(.accepted)
        _ = machine.handle(.timeout(.noPicture))
        XCTAssertEqual(machine.screen, .inCall(.init(door: "Dvor", picture: .none)))
        XCTAssertEqual(machine.handle(.firstFrame), [.cancelTimer(.noPicture)])
        XCTAssertEqual(machine.screen, .inCall(.init(door: "Dvor", picture: .showing)))
    }

    func testAudioOnlyDoorCountsFromTheAccept() {
        let (_, actions) = run([.ringing(door: "Dvor"), .accepted])
        XCTAssertEqual(actions.last, .startTimer(.noPicture))
    }

    func testOpenShowsOdomknuteForTwoAndAHalfSeconds() {
        var (machine, _) = run([.ringing(door: "Dvor"), .firstFrame, .accepted])
        XCTAssertEqual(machine.handle(.doorOpened), [.startTimer(.doorNotice), .play(.doorOpened)])
        XCTAssertEqual(M.Timer.doorNotice.seconds, 2.5)
        guard case .inCall(let call) = machine.screen else { return XCTFail() }
        XCTAssertEqual(call.notice, .unlocked)
        _ = machine.handle(.timeout(.doorNotice))
        guard case .inCall(let after) = machine.screen else { return XCTFail() }
        XCTAssertEqual(after.notice, .none)
        _ = machine.handle(.doorOpenFailed)
        guard case .inCall(let failed) = machine.screen else { return XCTFail() }
        XCTAssertEqual(failed.notice, .failed)
    }

    func testEndScreenThenHome() {
        var (machine, actions) = run([.ringing(door: "Dvor"), .accepted, .muted(true), .ended(reason: .hangup)])
        XCTAssertEqual(machine.screen, .ended(door: "Dvor", reason: .hangup))
        XCTAssertTrue(actions.contains(.play(.ended)))
        XCTAssertTrue(actions.contains(.startTimer(.endScreen)))
        _ = machine.handle(.timeout(.endScreen))
        XCTAssertEqual(machine.screen, .idle)
        // A ring during the end screen replaces it at once.
        (machine, _) = run([.ringing(door: "A"), .ended(reason: .noConnection), .ringing(door: "B")])
        XCTAssertEqual(machine.screen, .ringing(door: "B", preview: false))
    }

    func testMuteOnlyInCallAndConnectionAnywhere() {
        let (machine, _) = run([.muted(true), .connection(true)])
        XCTAssertEqual(machine.screen, .idle)
        XCTAssertTrue(machine.connected)
    }

    /// Every pair of events from every state reached by a short prefix: no
    /// crash, timers only for their screens, a ringing screen only after a ring.
    func testEveryPairOfEventsKeepsTheInvariants() {
        let prefixes: [[M.Event]] = [[], [.ringing(door: "D")], [.ringing(door: "D"), .accepted],
                                     [.ringing(door: "D"), .firstFrame, .accepted], [.ringing(door: "D"), .ended(reason: .remote)]]
        for prefix in prefixes {
            for first in Self.allEvents {
                for second in Self.allEvents {
                    var (machine, _) = run(prefix)
                    for event in [first, second] {
                        let actions = machine.handle(event)
                        for case .startTimer(let timer) in actions {
                            switch (timer, machine.screen) {
                            case (.noPicture, .inCall), (.noPicture, .ringing), (.doorNotice, .inCall), (.endScreen, .ended): break
                            default: XCTFail("\(timer) started on \(machine.screen) after \(prefix + [first, second])")
                            }
                        }
                    }
                    if case .inCall(let call) = machine.screen, call.picture == .showing {
                        XCTAssertTrue((prefix + [first, second]).contains(.firstFrame))
                    }
                }
            }
        }
    }
}
