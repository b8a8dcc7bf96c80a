import XCTest
@testable import C1nkSpeaker

/// The speaker's sleep and wake as a value: every event in every state, then
/// the rules as whole stories. No GStreamer and no clock.
final class SpeakerPowerMachineTests: XCTestCase {
    private typealias Machine = SpeakerPowerMachine
    private static let idle = Machine(idleSeconds: 1).idleSeconds
    private static let problem = "the speaker 'x' cannot play: busy"

    // MARK: - The states, reached through events only

    private static func machine(_ events: [Machine.Event]) -> Machine {
        var machine = Machine(idleSeconds: 1)
        for event in events { _ = machine.handle(event) }
        return machine
    }

    /// Every state the machine can be in, by name, and the events that lead there.
    private static let states: [(name: String, events: [Machine.Event])] = [
        ("closed", []),
        ("opening", [.open]),
        ("awake, idle", [.open, .started]),
        ("awake, playing", [.open, .started, .inputJoining, .inputJoined]),
        ("awake, an input joining", [.open, .started, .idleTimerFired, .inputJoining, .started]),
        ("asleep", [.open, .started, .idleTimerFired]),
        ("waking for an input", [.open, .started, .idleTimerFired, .inputJoining]),
        ("failed", [.open, .failed(problem: problem)]),
        ("failed, playing", [.open, .failed(problem: problem), .inputJoining, .failed(problem: problem), .inputJoined]),
        ("retrying for an input", [.open, .failed(problem: problem), .inputJoining]),
    ]

    private struct Outcome: Equatable, CustomStringConvertible {
        var actions: [Machine.Action]
        var state: Machine.State
        var playing: Int
        var timer: Bool
        var description: String { "\(actions) → \(state), playing \(playing), timer \(timer)" }
    }

    private static func outcome(_ state: String, _ event: Machine.Event) -> Outcome {
        var machine = machine(states.first { $0.name == state }!.events)
        let actions = machine.handle(event)
        return Outcome(actions: actions, state: machine.state, playing: machine.playing, timer: machine.idleTimerRunning)
    }

    func testTheStatesAreWhatTheirNamesSay() {
        let expected: [String: (Machine.State, Int, Bool)] = [
            "closed": (.closed, 0, false),
            "opening": (.starting(forInput: false), 0, false),
            "awake, idle": (.awake, 0, true),
            "awake, playing": (.awake, 1, false),
            "awake, an input joining": (.awake, 0, false),
            "asleep": (.asleep, 0, false),
            "waking for an input": (.starting(forInput: true), 0, false),
            "failed": (.failed(problem: Self.problem), 0, false),
            "failed, playing": (.failed(problem: Self.problem), 1, false),
            "retrying for an input": (.starting(forInput: true), 0, false),
        ]
        XCTAssertEqual(Set(expected.keys), Set(Self.states.map(\.name)))
        for (name, events) in Self.states {
            let machine = Self.machine(events)
            let (state, playing, timer) = expected[name]!
            XCTAssertEqual(machine.state, state, name)
            XCTAssertEqual(machine.playing, playing, name)
            XCTAssertEqual(machine.idleTimerRunning, timer, name)
            XCTAssertEqual(machine.isAsleep, state == .asleep, name)
            XCTAssertEqual(machine.problem, name.hasPrefix("failed") ? Self.problem : nil, name)
        }
    }

    // MARK: - Every event in every state

    /// What each event does in each state (actions, then the state, the
    /// inputs playing and whether the idle timer runs).
    func testEveryEventInEveryState() {
        let idle = Self.idle
        let problem = Self.problem
        let other = "the speaker 'x' cannot play: gone"
        let failedNow = Machine.State.failed(problem: other)
        typealias Row = (state: String, event: Machine.Event, expected: Outcome)
        func row(_ state: String, _ event: Machine.Event, _ actions: [Machine.Action], _ after: Machine.State,
                 playing: Int = 0, timer: Bool = false) -> Row {
            (state, event, Outcome(actions: actions, state: after, playing: playing, timer: timer))
        }
        let rows: [Row] = [
            // Closed: it opens once; an input asks for a start as a retry does.
            row("closed", .open, [.start], .starting(forInput: false)),
            row("closed", .inputJoining, [.start], .starting(forInput: true)),
            row("closed", .inputJoined, [], .closed, playing: 1),
            row("closed", .inputRefused, [], .closed),
            row("closed", .inputLeft, [], .closed),
            row("closed", .idleTimerFired, [], .closed),
            row("closed", .started, [], .closed),
            row("closed", .failed(problem: other), [.stop, .report(problem: other)], failedNow),

            // Opening: started with nothing to play, the idle timer starts.
            row("opening", .open, [], .starting(forInput: false)),
            row("opening", .inputJoining, [], .starting(forInput: false)),
            row("opening", .inputJoined, [], .starting(forInput: false), playing: 1),
            row("opening", .inputRefused, [], .starting(forInput: false)),
            row("opening", .inputLeft, [], .starting(forInput: false)),
            row("opening", .idleTimerFired, [], .starting(forInput: false)),
            row("opening", .started, [.startIdleTimer(seconds: idle)], .awake, timer: true),
            row("opening", .failed(problem: other), [.stop, .report(problem: other)], failedNow),

            // Awake and idle: the timer runs; it puts the speaker to sleep.
            row("awake, idle", .open, [], .awake, timer: true),
            row("awake, idle", .inputJoining, [.cancelIdleTimer], .awake),
            row("awake, idle", .inputJoined, [.cancelIdleTimer], .awake, playing: 1),
            row("awake, idle", .inputRefused, [], .awake, timer: true),
            row("awake, idle", .inputLeft, [], .awake, timer: true),
            row("awake, idle", .idleTimerFired, [.sleep], .asleep),
            row("awake, idle", .started, [], .awake, timer: true),
            row("awake, idle", .failed(problem: other), [.cancelIdleTimer, .stop, .report(problem: other)], failedNow),

            // Awake and playing: no timer until the last input leaves.
            row("awake, playing", .open, [], .awake, playing: 1),
            row("awake, playing", .inputJoining, [], .awake, playing: 1),
            row("awake, playing", .inputJoined, [], .awake, playing: 2),
            row("awake, playing", .inputRefused, [], .awake, playing: 1),
            row("awake, playing", .inputLeft, [.startIdleTimer(seconds: idle)], .awake, timer: true),
            row("awake, playing", .idleTimerFired, [], .awake, playing: 1),
            row("awake, playing", .started, [], .awake, playing: 1),
            row("awake, playing", .failed(problem: other), [.stop, .report(problem: other)], failedNow, playing: 1),

            // Awake for an input that has not joined yet: no timer; a refusal starts it.
            row("awake, an input joining", .open, [], .awake),
            row("awake, an input joining", .inputJoining, [], .awake),
            row("awake, an input joining", .inputJoined, [], .awake, playing: 1),
            row("awake, an input joining", .inputRefused, [.startIdleTimer(seconds: idle)], .awake, timer: true),
            row("awake, an input joining", .inputLeft, [.startIdleTimer(seconds: idle)], .awake, timer: true),
            row("awake, an input joining", .idleTimerFired, [], .awake),
            row("awake, an input joining", .started, [], .awake),
            row("awake, an input joining", .failed(problem: other), [.stop, .report(problem: other)], failedNow),

            // Asleep: an input wakes it; nothing else does.
            row("asleep", .open, [], .asleep),
            row("asleep", .inputJoining, [.wake], .starting(forInput: true)),
            row("asleep", .inputJoined, [], .asleep, playing: 1),
            row("asleep", .inputRefused, [], .asleep),
            row("asleep", .inputLeft, [], .asleep),
            row("asleep", .idleTimerFired, [], .asleep),
            row("asleep", .started, [], .asleep),
            row("asleep", .failed(problem: other), [.stop, .report(problem: other)], failedNow),

            // Waking for an input: once started, it does not count as idle.
            row("waking for an input", .open, [], .starting(forInput: true)),
            row("waking for an input", .inputJoining, [], .starting(forInput: true)),
            row("waking for an input", .inputJoined, [], .starting(forInput: true), playing: 1),
            row("waking for an input", .inputRefused, [], .starting(forInput: true)),
            row("waking for an input", .inputLeft, [], .starting(forInput: true)),
            row("waking for an input", .idleTimerFired, [], .starting(forInput: true)),
            row("waking for an input", .started, [], .awake),
            row("waking for an input", .failed(problem: other), [.stop, .report(problem: other)], failedNow),

            // Failed: never sleeps; an input tries again; a further failure stops it, unreported.
            row("failed", .open, [], .failed(problem: problem)),
            row("failed", .inputJoining, [.start], .starting(forInput: true)),
            row("failed", .inputJoined, [], .failed(problem: problem), playing: 1),
            row("failed", .inputRefused, [], .failed(problem: problem)),
            row("failed", .inputLeft, [], .failed(problem: problem)),
            row("failed", .idleTimerFired, [], .failed(problem: problem)),
            row("failed", .started, [], .failed(problem: problem)),
            row("failed", .failed(problem: other), [.stop], .failed(problem: problem)),

            // Failed with an input playing (it joined a speaker that failed again).
            row("failed, playing", .open, [], .failed(problem: problem), playing: 1),
            row("failed, playing", .inputJoining, [.start], .starting(forInput: true), playing: 1),
            row("failed, playing", .inputJoined, [], .failed(problem: problem), playing: 2),
            row("failed, playing", .inputRefused, [], .failed(problem: problem), playing: 1),
            row("failed, playing", .inputLeft, [], .failed(problem: problem)),
            row("failed, playing", .idleTimerFired, [], .failed(problem: problem), playing: 1),
            row("failed, playing", .started, [], .failed(problem: problem), playing: 1),
            row("failed, playing", .failed(problem: other), [.stop], .failed(problem: problem), playing: 1),

            // Retrying for an input: a failure is reported again (the start cleared the last one).
            row("retrying for an input", .open, [], .starting(forInput: true)),
            row("retrying for an input", .inputJoining, [], .starting(forInput: true)),
            row("retrying for an input", .inputJoined, [], .starting(forInput: true), playing: 1),
            row("retrying for an input", .inputRefused, [], .starting(forInput: true)),
            row("retrying for an input", .inputLeft, [], .starting(forInput: true)),
            row("retrying for an input", .idleTimerFired, [], .starting(forInput: true)),
            row("retrying for an input", .started, [], .awake),
            row("retrying for an input", .failed(problem: other), [.stop, .report(problem: other)], failedNow),
        ]
        let events: [Machine.Event] = [.open, .inputJoining, .inputJoined, .inputRefused, .inputLeft,
                                       .idleTimerFired, .started, .failed(problem: other)]
        for (state, _) in Self.states {
            for event in events {
                XCTAssertEqual(rows.filter { $0.state == state && $0.event == event }.count, 1, "one row for \(event) in \(state)")
            }
        }
        for row in rows {
            XCTAssertEqual(Self.outcome(row.state, row.event), row.expected, "\(row.event) in \(row.state)")
        }
    }

    // MARK: - The rules as stories

    /// Opened, it runs; with nothing to play it sleeps once the idle timer fires.
    func testOpensRunsAndSleepsWhenNothingPlays() {
        var machine = Machine(idleSeconds: 2.5)
        XCTAssertEqual(machine.handle(.open), [.start])
        XCTAssertEqual(machine.handle(.started), [.startIdleTimer(seconds: 2.5)])
        XCTAssertFalse(machine.isAsleep)
        XCTAssertEqual(machine.handle(.idleTimerFired), [.sleep])
        XCTAssertTrue(machine.isAsleep)
    }

    /// A call or a ringtone keeps it awake however long it plays; it sleeps
    /// only a full idle period after the last input leaves.
    func testDoesNotSleepWhileAnythingPlays() {
        var machine = Self.machine([.open, .started])
        XCTAssertEqual(machine.handle(.inputJoining), [.cancelIdleTimer])
        XCTAssertEqual(machine.handle(.inputJoined), [])
        XCTAssertEqual(machine.handle(.inputJoining), [])
        XCTAssertEqual(machine.handle(.inputJoined), [])
        XCTAssertEqual(machine.playing, 2)
        XCTAssertEqual(machine.handle(.inputLeft), [], "one input still plays")
        XCTAssertEqual(machine.handle(.inputLeft), [.startIdleTimer(seconds: 1)])
        XCTAssertEqual(machine.handle(.inputJoining), [.cancelIdleTimer], "a new input before the timer fires")
        XCTAssertEqual(machine.handle(.inputJoined), [])
        XCTAssertEqual(machine.handle(.inputLeft), [.startIdleTimer(seconds: 1)], "the timer starts again, in full")
        XCTAssertEqual(machine.handle(.idleTimerFired), [.sleep])
    }

    /// Asleep, the first input wakes it before it links; the wake does not
    /// start the idle timer (the input joins next).
    func testAnInputWakesItFirst() {
        var machine = Self.machine([.open, .started, .idleTimerFired])
        XCTAssertEqual(machine.handle(.inputJoining), [.wake])
        XCTAssertEqual(machine.handle(.started), [])
        XCTAssertEqual(machine.handle(.inputJoined), [])
        XCTAssertEqual(machine.state, .awake)
        XCTAssertEqual(machine.handle(.inputLeft), [.startIdleTimer(seconds: 1)])
    }

    /// An input that cannot link leaves the speaker to sleep as if it never came.
    func testARefusedInputLetsItSleep() {
        var machine = Self.machine([.open, .started, .idleTimerFired])
        XCTAssertEqual(machine.handle(.inputJoining), [.wake])
        XCTAssertEqual(machine.handle(.started), [])
        XCTAssertEqual(machine.handle(.inputRefused), [.startIdleTimer(seconds: 1)])
        XCTAssertEqual(machine.handle(.idleTimerFired), [.sleep])
    }

    /// A failure is reported once and stops the graph; the next input
    /// tries again, and a retry that fails is reported again.
    func testAFailureIsReportedOnceAndRetriedByTheNextInput() {
        var machine = Self.machine([.open, .started])
        XCTAssertEqual(machine.handle(.failed(problem: "a")), [.cancelIdleTimer, .stop, .report(problem: "a")])
        XCTAssertEqual(machine.problem, "a")
        XCTAssertEqual(machine.handle(.failed(problem: "b")), [.stop], "stopped again, not reported again")
        XCTAssertEqual(machine.problem, "a")
        XCTAssertEqual(machine.handle(.idleTimerFired), [], "a failed speaker does not sleep")
        XCTAssertEqual(machine.handle(.inputJoining), [.start])
        XCTAssertNil(machine.problem, "trying again")
        XCTAssertEqual(machine.handle(.failed(problem: "c")), [.stop, .report(problem: "c")])
        XCTAssertEqual(machine.handle(.inputJoined), [], "the input joins the silent speaker")
        XCTAssertEqual(machine.handle(.inputJoining), [.start])
        XCTAssertEqual(machine.handle(.started), [])
        XCTAssertEqual(machine.handle(.inputJoined), [])
        XCTAssertEqual(machine.state, .awake)
        XCTAssertEqual(machine.playing, 2)
        XCTAssertEqual(machine.handle(.inputLeft), [])
        XCTAssertEqual(machine.handle(.inputLeft), [.startIdleTimer(seconds: 1)])
    }

    /// The sink failing while the speaker sleeps stops it; the next input retries.
    func testAFailureWhileAsleep() {
        var machine = Self.machine([.open, .started, .idleTimerFired])
        XCTAssertEqual(machine.handle(.failed(problem: "a")), [.stop, .report(problem: "a")])
        XCTAssertFalse(machine.isAsleep)
        XCTAssertEqual(machine.handle(.inputJoining), [.start], "a fresh start, not a wake")
    }

    /// A speaker that never opened: the first start fails, and nothing
    /// plays until an input tries again.
    func testAStartThatFails() {
        var machine = Machine()
        XCTAssertEqual(machine.idleSeconds, 1, "today's default")
        XCTAssertEqual(machine.handle(.open), [.start])
        XCTAssertEqual(machine.handle(.failed(problem: "a")), [.stop, .report(problem: "a")])
        XCTAssertEqual(machine.handle(.open), [], "opens once")
        XCTAssertEqual(machine.handle(.inputJoining), [.start])
        XCTAssertEqual(machine.handle(.started), [])
    }

    /// More inputs leaving than joined (a double removal) do not count below zero.
    func testInputsDoNotCountBelowZero() {
        var machine = Self.machine([.open, .started, .inputJoining, .inputJoined])
        XCTAssertEqual(machine.handle(.inputLeft), [.startIdleTimer(seconds: 1)])
        XCTAssertEqual(machine.handle(.inputLeft), [], "the timer already runs")
        XCTAssertEqual(machine.playing, 0)
    }
}
