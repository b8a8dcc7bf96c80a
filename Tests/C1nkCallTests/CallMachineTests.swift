import XCTest
@testable import C1nkCall
import C1nkProtocol

private typealias Event = CallMachine.Event
private typealias Action = CallMachine.Action

private let current = "call-1"
private let foreign = "call-2"
private let door = "Hlavný vchod"
private let offerSdp = "v=0 offer"
private let answerSdp = "v=0 answer"
private let remoteCandidate = IceCandidate(candidate: "candidate:1 1 UDP 2122260223 10.0.0.2 50000 typ host",
                                           sdpMid: "0", sdpMLineIndex: 0)
private let localCandidate = IceCandidate(candidate: "candidate:2 1 UDP 2122260223 10.0.0.3 50001 typ host",
                                          sdpMid: "0", sdpMLineIndex: 0)

// MARK: - Events and states

/// Every event that carries a callId, once per case (twice for call-end: the
/// mapped reason and any other).
private func callEvents(for id: String) -> [Event] {
    [.incoming(callId: id, doorName: door), .overCapacity(callId: id, doorName: door), .joinOk(callId: id), .offer(callId: id, sdp: offerSdp),
     .remoteCandidate(callId: id, candidate: remoteCandidate), .doorOpenOk(callId: id),
     .callEnd(callId: id, reason: "answered-elsewhere"), .callEnd(callId: id, reason: "door-hangup"),
     .answerCreated(callId: id, sdp: answerSdp), .localCandidate(callId: id, candidate: localCandidate),
     .mediaConnected(callId: id), .mediaDisconnected(callId: id), .firstFrame(callId: id),
     .mediaFailed(callId: id, reason: "dtls failed"), .serverError(callId: id, message: "unknown call")]
        + CallMachine.Timer.allCases.map { .timeout($0, callId: id) }
}

private let callFreeEvents: [Event] = [.signalingLost, .signalingReconnected, .serverError(callId: nil, message: "oops"),
                                       .userAccept, .userReject, .userHangup,
                                       .userOpenDoor, .userMute(true), .userMute(false), .shutdown]

private let everyEvent = callEvents(for: current) + callEvents(for: foreign) + callFreeEvents

/// No `default`: a new Event case stops this file compiling until the lists
/// above (and `eventCaseCount`) include it.
private func caseName(_ event: Event) -> String {
    switch event {
    case .incoming: "incoming"
    case .overCapacity: "overCapacity"
    case .joinOk: "joinOk"
    case .offer: "offer"
    case .remoteCandidate: "remoteCandidate"
    case .doorOpenOk: "doorOpenOk"
    case .callEnd: "callEnd"
    case .serverError: "serverError"
    case .signalingLost: "signalingLost"
    case .signalingReconnected: "signalingReconnected"
    case .answerCreated: "answerCreated"
    case .localCandidate: "localCandidate"
    case .mediaConnected: "mediaConnected"
    case .mediaDisconnected: "mediaDisconnected"
    case .firstFrame: "firstFrame"
    case .mediaFailed: "mediaFailed"
    case .userAccept: "userAccept"
    case .userReject: "userReject"
    case .userHangup: "userHangup"
    case .userOpenDoor: "userOpenDoor"
    case .userMute: "userMute"
    case .timeout: "timeout"
    case .shutdown: "shutdown"
    }
}

private let eventCaseCount = 23

private func eventCallId(_ event: Event) -> String? {
    switch event {
    case let .incoming(id, _), let .overCapacity(id, _), let .joinOk(id), let .offer(id, _), let .remoteCandidate(id, _),
         let .doorOpenOk(id), let .callEnd(id, _), let .answerCreated(id, _), let .localCandidate(id, _),
         let .mediaConnected(id), let .mediaDisconnected(id), let .firstFrame(id), let .mediaFailed(id, _),
         let .timeout(_, id):
        return id
    case .serverError(let id, _):
        return id
    case .signalingLost, .signalingReconnected, .userAccept, .userReject, .userHangup, .userOpenDoor, .userMute,
         .shutdown:
        return nil
    }
}

private func actionCallId(_ action: Action) -> String? {
    switch action {
    case let .emit(event):
        return event.callId
    case let .startMedia(id, _, _), let .addRemoteCandidate(id, _), let .stopMedia(id),
         let .enableAudio(id), let .startTimer(_, id), let .callAccepted(id):
        return id
    case let .signal(intent):
        return intent.callId
    case .startRingtone, .stopRingtone, .setMicrophoneMuted, .cancelTimer, .cancelTimers, .refuse:
        return nil
    }
}

/// The reachable states, each as the events that lead to it.
private enum Script {
    static let idle: [Event] = []
    static let ringing: [Event] = [.incoming(callId: current, doorName: door)]
    static let joined = ringing + [.joinOk(callId: current)]
    static let withMedia = joined + [.offer(callId: current, sdp: offerSdp)]
    static let answerSent = withMedia + [.answerCreated(callId: current, sdp: answerSdp)]
    static let previewConnected = answerSent + [.mediaConnected(callId: current), .firstFrame(callId: current)]
    static let acceptPending = withMedia + [.userAccept]
    static let accepted = answerSent + [.userAccept]
    static let acceptedConnected = accepted + [.mediaConnected(callId: current), .firstFrame(callId: current)]
    static let afterCall = answerSent + [.userReject]
    static let signalingDown = acceptedConnected + [.signalingLost]
    static let rejoining = signalingDown + [.signalingReconnected]
    static let doorOpening = acceptedConnected + [.userOpenDoor]
    static let mediaLost = acceptedConnected + [.mediaDisconnected(callId: current)]
    static let serverErrorWhileRinging = answerSent + [.serverError(callId: current, message: "unknown call")]

    static let all: [(name: String, events: [Event])] = [
        ("idle", idle), ("ringing", ringing), ("ringing+joined", joined), ("ringing with media", withMedia),
        ("ringing, answer sent", answerSent), ("ringing, media connected", previewConnected),
        ("ringing, accept pending", acceptPending), ("accepted", accepted),
        ("accepted, media connected", acceptedConnected), ("idle after a call", afterCall),
        ("accepted, signaling down", signalingDown), ("accepted, rejoining", rejoining),
        ("accepted, door opening", doorOpening), ("accepted, media lost", mediaLost),
        ("ringing, server error", serverErrorWhileRinging),
    ]
}

// MARK: - Expected actions

private func ringing(_ id: String = current) -> [Action] {
    [.emit(.ringing(callId: id, doorName: door)), .startRingtone,
     .signal(.join(callId: id)), .startTimer(.connect, callId: id)]
}

private func accepting(_ id: String = current) -> [Action] {
    [.stopRingtone, .signal(.accept(callId: id)), .enableAudio(callId: id),
     .emit(.accepted(callId: id)), .callAccepted(callId: id)]
}

private func ended(_ reason: String, _ id: String = current, serverReason: String? = nil) -> Action {
    return .emit(.ended(callId: id, reason: CallMachine.EndReason(rawValue: reason)!, doorName: door,
                        serverReason: serverReason))
}

private func isEnded(_ action: Action) -> Bool {
    if case .emit(.ended) = action { return true }
    return false
}

// MARK: - Harness

/// The call a ring event is for (`incoming` or `overCapacity`).
private func ringId(_ event: Event) -> String? {
    switch event {
    case let .incoming(id, _), let .overCapacity(id, _): id
    default: nil
    }
}

/// A machine plus what the outside world has seen it do, so invariants that
/// span several events are checked after every single one.
private struct Harness {
    var machine = CallMachine()
    var trace: [Event] = []
    /// Calls the user tapped accept for while they were current.
    var userAccepted: Set<String> = []
    var answerSent: Set<String> = []
    var acceptSent: Set<String> = []
    var endedCount: [String: Int] = [:]

    init(_ events: [Event] = [], file: StaticString = #filePath, line: UInt = #line) {
        for event in events { step(event, file: file, line: line) }
    }

    @discardableResult
    mutating func step(_ event: Event, file: StaticString = #filePath, line: UInt = #line) -> [Action] {
        let before = machine.call
        if event == .userAccept, let before { userAccepted.insert(before.callId) }
        let actions = machine.handle(event)
        trace.append(event)
        check(actions, after: event, callBefore: before, file: file, line: line)
        return actions
    }

    private mutating func check(_ actions: [Action], after event: Event, callBefore: CallMachine.Call?,
                                file: StaticString, line: UInt) {
        let trace = self.trace
        func context() -> String { "events \(trace) gave \(actions)" }
        var endedNow: [String] = []
        for (index, action) in actions.enumerated() {
            if let id = actionCallId(action) {
                let allowed = [callBefore?.callId, ringId(event)]
                XCTAssert(allowed.contains(id), "action for an unrelated call; \(context())", file: file, line: line)
            }
            switch action {
            case let .signal(.sendAnswer(id, _)):
                answerSent.insert(id)
            case let .signal(.accept(id)):
                XCTAssert(userAccepted.contains(id) && answerSent.contains(id),
                          "accept before the user accepted and our answer was out; \(context())", file: file, line: line)
                XCTAssertFalse(acceptSent.contains(id), "accept sent twice; \(context())", file: file, line: line)
                acceptSent.insert(id)
            case let .enableAudio(id):
                XCTAssert(userAccepted.contains(id) && answerSent.contains(id) && acceptSent.contains(id),
                          "audio on before accept; \(context())", file: file, line: line)
            case let .startMedia(id, _, audioEnabled):
                XCTAssertEqual(audioEnabled, acceptSent.contains(id),
                               "media audio must be on exactly when accepted; \(context())", file: file, line: line)
            case .emit(.ringing):
                XCTAssertEqual(index, 0, "ringing must come first; \(context())", file: file, line: line)
            case let .emit(.missed(id, _, reason)):
                XCTAssertEqual(ringId(event), id, "missed only for a ring; \(context())", file: file, line: line)
                if case .incoming = event {
                    XCTAssertNotNil(callBefore, "missed only while busy; \(context())", file: file, line: line)
                }
                XCTAssertEqual(reason, callBefore == nil ? "over-capacity" : "busy", "the reason; \(context())",
                               file: file, line: line)
                XCTAssertEqual(machine.call, callBefore, "a missed ring touched the call; \(context())",
                               file: file, line: line)
                XCTAssertEqual(actions.count, 1, "a missed ring does nothing else; \(context())", file: file, line: line)
                endedCount[id, default: 0] += 1
            case let .emit(.ended(id, _, _, _, _)):
                endedNow.append(id)
                endedCount[id, default: 0] += 1
                XCTAssertEqual(endedCount[id], 1, "second ended for \(id); \(context())", file: file, line: line)
                XCTAssertEqual(index, actions.count - 1, "ended must be the last action; \(context())",
                               file: file, line: line)
            default:
                break
            }
        }
        for id in endedNow {
            XCTAssertNotEqual(machine.call?.callId, id, "call kept after ended; \(context())", file: file, line: line)
        }
    }

    /// Stops the process and checks every ring got exactly one `ended` (or `missed`).
    mutating func shutDownAndCheckEveryRingEnded(file: StaticString = #filePath, line: UInt = #line) {
        step(.shutdown, file: file, line: line)
        XCTAssertNil(machine.call, file: file, line: line)
        for id in machine.handledCallIds {
            XCTAssertEqual(endedCount[id], 1, "ring \(id) ended \(endedCount[id] ?? 0) times; events \(trace)",
                           file: file, line: line)
        }
    }
}

/// Deterministic, so a failing walk replays identically.
private struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

final class CallMachineTests: XCTestCase {
    private func drive(_ events: [Event], file: StaticString = #filePath, line: UInt = #line) -> CallMachine {
        Harness(events, file: file, line: line).machine
    }

    // MARK: Every event in every state

    func testEventListsCoverEveryEventCase() {
        XCTAssertEqual(Set(everyEvent.map(caseName)).count, eventCaseCount)
    }

    func testReachableStatesHaveTheExpectedShape() {
        XCTAssertNil(drive(Script.idle).call)
        XCTAssertNil(drive(Script.afterCall).call)
        XCTAssertEqual(drive(Script.afterCall).handledCallIds, [current])

        var call = CallMachine.Call(callId: current, doorName: door)
        XCTAssertEqual(drive(Script.ringing).call, call)
        call.joined = true
        XCTAssertEqual(drive(Script.joined).call, call)
        call.hasMedia = true
        XCTAssertEqual(drive(Script.withMedia).call, call)
        var pending = call
        pending.acceptPending = true
        XCTAssertEqual(drive(Script.acceptPending).call, pending)
        call.answerSent = true
        XCTAssertEqual(drive(Script.answerSent).call, call)
        var preview = call
        preview.mediaConnected = true
        preview.everConnected = true
        preview.firstFrameSeen = true
        XCTAssertEqual(drive(Script.previewConnected).call, preview)
        call.phase = .accepted
        XCTAssertEqual(drive(Script.accepted).call, call)
        call.mediaConnected = true
        call.everConnected = true
        call.firstFrameSeen = true
        XCTAssertEqual(drive(Script.acceptedConnected).call, call)
        XCTAssertEqual(drive(Script.signalingDown).call, call)
        XCTAssertTrue(drive(Script.signalingDown).signalingDown)
        var rejoining = call
        rejoining.joined = false
        rejoining.rejoinPending = true
        XCTAssertEqual(drive(Script.rejoining).call, rejoining)
        XCTAssertFalse(drive(Script.rejoining).signalingDown)
        var opening = call
        opening.doorOpenPending = true
        XCTAssertEqual(drive(Script.doorOpening).call, opening)
        var lost = call
        lost.mediaConnected = false
        XCTAssertEqual(drive(Script.mediaLost).call, lost)
        var erred = CallMachine.Call(callId: current, doorName: door)
        erred.joined = true
        erred.hasMedia = true
        erred.answerSent = true
        erred.serverErrorPending = true
        XCTAssertEqual(drive(Script.serverErrorWhileRinging).call, erred)
    }

    func testEveryEventInEveryStateKeepsTheInvariants() {
        for (name, script) in Script.all {
            for event in everyEvent {
                var harness = Harness(script)
                let actions = harness.step(event)
                XCTAssertLessThanOrEqual(actions.filter(isEnded).count, 1, "\(name) + \(event)")
                if case .userMute(let muted) = event {
                    // Mute is the user's choice at any time of a call, ringing included.
                    XCTAssertEqual(actions, harness.machine.call == nil ? [] : [.setMicrophoneMuted(muted)], "mute in \(name)")
                }
                harness.shutDownAndCheckEveryRingEnded()
            }
        }
    }

    func testEventsForAForeignCallDoNothingInEveryState() {
        for (name, script) in Script.all {
            let start = drive(script)
            let foreignIds: [String] = [current, foreign].filter { $0 != start.call?.callId }
            for event in foreignIds.flatMap(callEvents(for:)) {
                if ringId(event) != nil { continue }  // a ring for another call is not foreign: it starts (or misses) one
                var machine = start
                XCTAssertEqual(machine.handle(event), [], "\(name) + \(event)")
                XCTAssertEqual(machine, start, "\(name) + \(event) changed the state")
            }
        }
    }

    func testEveryPairOfEventsFromEveryStateKeepsTheInvariants() {
        for (_, script) in Script.all {
            let start = Harness(script)
            for first in everyEvent {
                var afterFirst = start
                afterFirst.step(first)
                for second in everyEvent {
                    var harness = afterFirst
                    harness.step(second)
                    harness.shutDownAndCheckEveryRingEnded()
                }
            }
        }
    }

    func testRandomEventSequencesKeepTheInvariants() {
        var random = SplitMix64(state: 0xC1_4E_0000)
        // A third id so that a ring can arrive after the first two calls ended.
        let alphabet = everyEvent + callEvents(for: "call-3")
        for _ in 0..<300 {
            var harness = Harness()
            for _ in 0..<40 { harness.step(alphabet.randomElement(using: &random)!) }
            harness.shutDownAndCheckEveryRingEnded()
        }
    }

    // MARK: Ringing

    func testIncomingSignalsRingingBeforeAnyNetworkOrMediaWork() {
        var machine = CallMachine()
        XCTAssertEqual(machine.handle(.incoming(callId: current, doorName: door)), ringing())
        XCTAssertEqual(machine.call, CallMachine.Call(callId: current, doorName: door))
    }

    func testOfferWhileRingingStartsMediaWithAudioOff() {
        var machine = drive(Script.joined)
        XCTAssertEqual(machine.handle(.offer(callId: current, sdp: offerSdp)),
                       [.startMedia(callId: current, offer: offerSdp, audioEnabled: false)])
    }

    func testAnswerCreatedSendsTheAnswer() {
        var machine = drive(Script.withMedia)
        XCTAssertEqual(machine.handle(.answerCreated(callId: current, sdp: answerSdp)),
                       [.signal(.sendAnswer(callId: current, sdp: answerSdp))])
    }

    func testCandidatesFlowBothWaysOnceThereIsMedia() {
        var machine = drive(Script.joined)
        XCTAssertEqual(machine.handle(.remoteCandidate(callId: current, candidate: remoteCandidate)), [],
                       "no media session to add it to yet")
        XCTAssertEqual(machine.handle(.localCandidate(callId: current, candidate: localCandidate)),
                       [.signal(.sendCandidate(callId: current, candidate: localCandidate))])
        _ = machine.handle(.offer(callId: current, sdp: offerSdp))
        XCTAssertEqual(machine.handle(.remoteCandidate(callId: current, candidate: remoteCandidate)),
                       [.addRemoteCandidate(callId: current, candidate: remoteCandidate)])
    }

    func testDuplicateIncomingIsIgnored() {
        for script in [Script.ringing, Script.answerSent, Script.accepted, Script.afterCall] {
            let start = drive(script)
            var machine = start
            XCTAssertEqual(machine.handle(.incoming(callId: current, doorName: door)), [])
            XCTAssertEqual(machine, start)
        }
    }

    func testOnlyTheLastThousandCallIdsAreRemembered() {
        var machine = drive(Script.accepted)
        let limit = CallMachine.rememberedCallIds
        for index in 0..<(limit + 500) {
            _ = machine.handle(.incoming(callId: "busy-\(index)", doorName: door))
        }
        XCTAssertEqual(machine.handledCallIds.count, limit, "bounded over months of rings")
        XCTAssertTrue(machine.handledCallIds.contains("busy-\(limit + 499)"))
        XCTAssertFalse(machine.handledCallIds.contains(current), "the oldest is forgotten first")
        XCTAssertEqual(machine.handle(.incoming(callId: "busy-\(limit + 400)", doorName: door)), [], "a recent repeat is still ignored")
        XCTAssertEqual(machine.call?.callId, current, "the call in progress is untouched")
    }

    func testIncomingForAnotherCallWhileBusyIsMissedAndSendsNothing() {
        for script in [Script.ringing, Script.acceptPending, Script.accepted, Script.acceptedConnected] {
            let start = drive(script)
            var machine = start
            // No reject: this device never joined that ring, and a reject could end it for every resident.
            XCTAssertEqual(machine.handle(.incoming(callId: foreign, doorName: door)),
                           [.emit(.missed(callId: foreign, doorName: door, reason: "busy"))])
            XCTAssertEqual(machine.call, start.call, "the current call is untouched")
            XCTAssertEqual(machine.handle(.incoming(callId: foreign, doorName: door)), [], "already handled")
        }
    }

    func testARingBeyondCapacityIsMissedOverCapacityAndSendsNothing() {
        for script in [Script.idle, Script.afterCall] {
            let start = drive(script)
            var machine = start
            // No ringtone, no join, no reject: another device in the home may still answer it.
            XCTAssertEqual(machine.handle(.overCapacity(callId: foreign, doorName: door)),
                           [.emit(.missed(callId: foreign, doorName: door, reason: "over-capacity"))])
            XCTAssertNil(machine.call, "no call is started")
            XCTAssertTrue(machine.handledCallIds.contains(foreign))
            XCTAssertEqual(machine.handle(.incoming(callId: foreign, doorName: door)), [], "a repeat of that ring is ignored")
            XCTAssertEqual(machine.handle(.overCapacity(callId: foreign, doorName: door)), [], "reported once")
            XCTAssertEqual(machine.handle(.incoming(callId: "call-3", doorName: door)), ringing("call-3"),
                           "the next ring with room rings")
        }
    }

    func testOverCapacityWhileInACallIsMissedBusyAndTouchesNothing() {
        for script in [Script.ringing, Script.acceptPending, Script.accepted, Script.acceptedConnected] {
            let start = drive(script)
            var machine = start
            XCTAssertEqual(machine.handle(.overCapacity(callId: foreign, doorName: door)),
                           [.emit(.missed(callId: foreign, doorName: door, reason: "busy"))])
            XCTAssertEqual(machine.call, start.call, "the current call is untouched")
            XCTAssertEqual(machine.handle(.overCapacity(callId: current, doorName: door)), [], "the current call's id is handled")
        }
    }

    /// The ids a server may try to build paths and pipelines with: each is missed, nothing else.
    static let hostileCallIds = ["../../c1nk-escape1", "x\" location=\"c1nk-pwned", "a%n%s%Y{callId}",
                                 String(repeating: "a", count: 4096), "call\n1", "call\u{0}1", "call-\u{FFFD}", "", "..", "a/b", "a b"]

    func testARingWithAnInvalidCallIdIsMissedInvalidAndTouchesNothing() {
        for script in [Script.idle, Script.ringing, Script.accepted] {
            for hostile in Self.hostileCallIds {
                let start = drive(script)
                for event in [Event.incoming(callId: hostile, doorName: door), .overCapacity(callId: hostile, doorName: door)] {
                    var machine = start
                    let actions = machine.handle(event)
                    XCTAssertEqual(actions, [.emit(.missed(callId: ServerIdentifier.printable(hostile), doorName: door,
                                                           reason: "invalid-call-id"))], "\(hostile.prefix(40))")
                    XCTAssertEqual(machine.call, start.call, "the state is untouched")
                    XCTAssertFalse(machine.handledCallIds.contains(hostile), "not remembered")
                }
            }
        }
        XCTAssertEqual(ServerIdentifier.printable("x\" location=\"c1nk-pwned"), "x\\x22\\x20location\\x3D\\x22c1nk-pwned")
        XCTAssertEqual(ServerIdentifier.printable(String(repeating: "a", count: 4096)), String(repeating: "a", count: 64) + "…")
    }

    func testNewRingAfterACallEndedRingsAgain() {
        var machine = drive(Script.afterCall)
        XCTAssertEqual(machine.handle(.incoming(callId: foreign, doorName: door)), ringing(foreign))
        XCTAssertEqual(machine.call?.callId, foreign)
    }

    // MARK: Accepting

    func testAcceptAfterAnswerAcceptsAtOnce() {
        var machine = drive(Script.answerSent)
        XCTAssertEqual(machine.handle(.userAccept), accepting())
        XCTAssertEqual(machine.call?.phase, .accepted)
    }

    func testAcceptBeforeAnswerWaitsForTheAnswer() {
        var machine = drive(Script.withMedia)
        XCTAssertEqual(machine.handle(.userAccept), [])
        XCTAssertEqual(machine.call?.phase, .ringing)
        XCTAssertEqual(machine.handle(.answerCreated(callId: current, sdp: answerSdp)),
                       [.signal(.sendAnswer(callId: current, sdp: answerSdp))] + accepting())
        XCTAssertEqual(machine.call?.phase, .accepted)
        XCTAssertEqual(machine.call?.acceptPending, false)
    }

    func testAcceptBeforeOfferKeepsAudioOffUntilOurAnswerIsOut() {
        var machine = drive(Script.joined)
        XCTAssertEqual(machine.handle(.userAccept), [])
        XCTAssertEqual(machine.handle(.offer(callId: current, sdp: offerSdp)),
                       [.startMedia(callId: current, offer: offerSdp, audioEnabled: false)])
        XCTAssertEqual(machine.handle(.answerCreated(callId: current, sdp: answerSdp)),
                       [.signal(.sendAnswer(callId: current, sdp: answerSdp))] + accepting())
    }

    func testSecondAcceptTapDoesNothing() {
        var pending = drive(Script.acceptPending)
        XCTAssertEqual(pending.handle(.userAccept), [])
        XCTAssertEqual(pending.handle(.answerCreated(callId: current, sdp: answerSdp)),
                       [.signal(.sendAnswer(callId: current, sdp: answerSdp))] + accepting())
        var accepted = drive(Script.accepted)
        XCTAssertEqual(accepted.handle(.userAccept), [])
    }

    func testAcceptWithNoCallDoesNothing() {
        var machine = drive(Script.afterCall)
        XCTAssertEqual(machine.handle(.userAccept), [])
    }

    // MARK: Ending

    func testRejectBeforeAcceptSendsRejectAndEndsRejected() {
        var machine = drive(Script.answerSent)
        XCTAssertEqual(machine.handle(.userReject),
                       [.signal(.reject(callId: current)), .cancelTimers, .stopRingtone,
                        .stopMedia(callId: current), ended("rejected")])
        XCTAssertNil(machine.call)
    }

    func testRejectBeforeAnyOfferHasNoMediaToStop() {
        var machine = drive(Script.ringing)
        XCTAssertEqual(machine.handle(.userReject),
                       [.signal(.reject(callId: current)), .cancelTimers, .stopRingtone, ended("rejected")])
    }

    func testRejectWhileAcceptPendingStillRejects() {
        var machine = drive(Script.acceptPending)
        XCTAssertEqual(machine.handle(.userReject),
                       [.signal(.reject(callId: current)), .cancelTimers, .stopRingtone,
                        .stopMedia(callId: current), ended("rejected")])
    }

    func testHangupBeforeAcceptIsAReject() {
        var machine = drive(Script.withMedia)
        XCTAssertEqual(machine.handle(.userHangup),
                       [.signal(.reject(callId: current)), .cancelTimers, .stopRingtone,
                        .stopMedia(callId: current), ended("rejected")])
    }

    func testHangupAfterAcceptSendsHangupAndEndsHangup() {
        for event in [Event.userHangup, .userReject] {
            var machine = drive(Script.acceptedConnected)
            XCTAssertEqual(machine.handle(event),
                           [.signal(.hangup(callId: current)), .cancelTimers, .stopMedia(callId: current),
                            ended("hangup")], "\(event)")
            XCTAssertNil(machine.call)
        }
    }

    func testCallEndAnsweredElsewhereEndsWithThatReason() {
        var machine = drive(Script.answerSent)
        XCTAssertEqual(machine.handle(.callEnd(callId: current, reason: "answered-elsewhere")),
                       [.cancelTimers, .stopRingtone, .stopMedia(callId: current),
                        ended("answered-elsewhere", serverReason: "answered-elsewhere")])
        XCTAssertNil(machine.call)
    }

    func testCallEndWithAnyOtherReasonEndsRemoteWithTheServerReason() {
        for reason in ["door-hangup", "timeout", "", "Answered-Elsewhere"] {
            var ringingMachine = drive(Script.ringing)
            XCTAssertEqual(ringingMachine.handle(.callEnd(callId: current, reason: reason)),
                           [.cancelTimers, .stopRingtone, ended("remote", serverReason: reason)], reason)
            var acceptedMachine = drive(Script.acceptedConnected)
            XCTAssertEqual(acceptedMachine.handle(.callEnd(callId: current, reason: reason)),
                           [.cancelTimers, .stopMedia(callId: current), ended("remote", serverReason: reason)],
                           reason)
        }
    }

    func testCallEndSendsNothingToTheServer() {
        for (name, script) in Script.all {
            var machine = drive(script)
            let actions = machine.handle(.callEnd(callId: current, reason: "door-hangup"))
            XCTAssertFalse(actions.contains { if case .signal = $0 { true } else { false } }, name)
        }
    }

    func testMediaFailedLeavesReportsAndEnds() {
        var ringingMachine = drive(Script.withMedia)
        XCTAssertEqual(ringingMachine.handle(.mediaFailed(callId: current, reason: "dtls failed")),
                       [.signal(.reject(callId: current)),
                        .emit(.error(callId: current, message: "dtls failed")),
                        .cancelTimers, .stopRingtone, .stopMedia(callId: current), ended("media-failed")])
        var acceptedMachine = drive(Script.acceptedConnected)
        XCTAssertEqual(acceptedMachine.handle(.mediaFailed(callId: current, reason: "dtls failed")),
                       [.signal(.hangup(callId: current)),
                        .emit(.error(callId: current, message: "dtls failed")),
                        .cancelTimers, .stopMedia(callId: current), ended("media-failed")])
    }

    func testEventsAfterEndedDoNothing() {
        let start = drive(Script.afterCall)
        for event in everyEvent {
            if ringId(event) == foreign { continue }  // a genuinely new ring
            var machine = start
            XCTAssertEqual(machine.handle(event), [], "\(event)")
        }
    }

    // MARK: Connect timeout

    func testConnectTimeoutWhileRingingRejectsWithNoConnection() {
        var bare = drive(Script.ringing)
        XCTAssertEqual(bare.handle(.timeout(.connect, callId: current)),
                       [.signal(.reject(callId: current)), .cancelTimers, .stopRingtone, ended("no-connection")])
        var withMedia = drive(Script.answerSent)
        XCTAssertEqual(withMedia.handle(.timeout(.connect, callId: current)),
                       [.signal(.reject(callId: current)), .cancelTimers, .stopRingtone,
                        .stopMedia(callId: current), ended("no-connection")])
        XCTAssertNil(withMedia.call)
    }

    func testConnectTimeoutAfterAcceptHangsUpWithNoConnection() {
        var machine = drive(Script.accepted)
        XCTAssertEqual(machine.handle(.timeout(.connect, callId: current)),
                       [.signal(.hangup(callId: current)), .cancelTimers, .stopMedia(callId: current),
                        ended("no-connection")])
    }

    func testConnectTimeoutAfterMediaConnectedDoesNothing() {
        for script in [Script.previewConnected, Script.acceptedConnected] {
            let start = drive(script)
            var machine = start
            XCTAssertEqual(machine.handle(.timeout(.connect, callId: current)), [])
            XCTAssertEqual(machine, start)
        }
    }

    func testMediaConnectedCancelsTheTimerAndIsEmittedOnce() {
        var machine = drive(Script.answerSent)
        XCTAssertEqual(machine.handle(.mediaConnected(callId: current)),
                       [.cancelTimer(.connect), .emit(.mediaConnected(callId: current))])
        XCTAssertEqual(machine.handle(.mediaConnected(callId: current)), [])
        _ = machine.handle(.userAccept)
        XCTAssertEqual(machine.handle(.mediaConnected(callId: current)), [])
    }

    func testFirstFrameIsEmittedOnce() {
        var machine = drive(Script.answerSent)
        XCTAssertEqual(machine.handle(.firstFrame(callId: current)),
                       [.emit(.firstFrame(callId: current))])
        XCTAssertEqual(machine.handle(.firstFrame(callId: current)), [])
        _ = machine.handle(.userAccept)
        XCTAssertEqual(machine.handle(.firstFrame(callId: current)), [])
        _ = machine.handle(.offer(callId: current, sdp: offerSdp))
        XCTAssertEqual(machine.handle(.firstFrame(callId: current)), [], "not again after a re-offer")
    }

    // MARK: Reconnect and re-offer

    func testSignalingReconnectedMidCallRejoinsTheSameCall() {
        for script in [Script.ringing, Script.answerSent, Script.accepted, Script.acceptedConnected] {
            var machine = drive(script)
            let before = machine.call
            XCTAssertEqual(machine.handle(.signalingReconnected),
                           [.signal(.join(callId: current)), .startTimer(.rejoin, callId: current)])
            XCTAssertEqual(machine.call?.joined, false, "join-ok is awaited again")
            var expected = before
            expected?.joined = false
            expected?.rejoinPending = true
            XCTAssertEqual(machine.call, expected, "media state is kept: it is peer to peer")
            XCTAssertEqual(machine.handle(.joinOk(callId: current)), [.cancelTimer(.rejoin)])
            XCTAssertEqual(machine.call?.joined, true)
            XCTAssertEqual(machine.call?.rejoinPending, false)
            XCTAssertEqual(machine.handle(.timeout(.rejoin, callId: current)), [], "a late timer does nothing")
        }
    }

    func testSignalingReconnectedWithNoCallDoesNothing() {
        for script in [Script.idle, Script.afterCall] {
            var machine = drive(script)
            XCTAssertEqual(machine.handle(.signalingReconnected), [])
        }
    }

    func testReofferWhileAcceptedRestartsMediaWithAudioOn() {
        var machine = drive(Script.acceptedConnected)
        XCTAssertEqual(machine.handle(.offer(callId: current, sdp: "v=0 restart")),
                       [.startMedia(callId: current, offer: "v=0 restart", audioEnabled: true),
                        .startTimer(.connect, callId: current)])
        XCTAssertEqual(machine.handle(.answerCreated(callId: current, sdp: answerSdp)),
                       [.signal(.sendAnswer(callId: current, sdp: answerSdp))], "answer only: the call is already accepted")
        XCTAssertEqual(machine.handle(.mediaConnected(callId: current)),
                       [.cancelTimer(.connect), .emit(.mediaConnected(callId: current))],
                       "media resumed")
        XCTAssertEqual(machine.call?.phase, .accepted)
    }

    func testReofferBeforeMediaConnectedKeepsTheRunningTimer() {
        var machine = drive(Script.accepted)
        XCTAssertEqual(machine.handle(.offer(callId: current, sdp: "v=0 restart")),
                       [.startMedia(callId: current, offer: "v=0 restart", audioEnabled: true)])
    }

    func testReofferWhileRingingKeepsAudioOffAndAcceptWaitsForTheNewAnswer() {
        var machine = drive(Script.previewConnected)
        XCTAssertEqual(machine.handle(.offer(callId: current, sdp: "v=0 restart")),
                       [.startMedia(callId: current, offer: "v=0 restart", audioEnabled: false),
                        .startTimer(.connect, callId: current)])
        XCTAssertEqual(machine.handle(.userAccept), [])
        XCTAssertEqual(machine.handle(.answerCreated(callId: current, sdp: answerSdp)),
                       [.signal(.sendAnswer(callId: current, sdp: answerSdp))] + accepting())
    }

    func testConnectTimeoutAfterAFailedReofferEndsTheCallLost() {
        var machine = drive(Script.acceptedConnected)
        _ = machine.handle(.offer(callId: current, sdp: "v=0 restart"))
        XCTAssertEqual(machine.handle(.timeout(.connect, callId: current)),
                       [.signal(.hangup(callId: current)), .cancelTimers, .stopMedia(callId: current),
                        ended("lost")], "it had connected: lost, not no-connection")
    }

    // MARK: Lost calls and server errors

    func testRejoinWithNoJoinOkInTimeEndsTheCallLost() {
        var machine = drive(Script.rejoining)
        XCTAssertEqual(machine.handle(.timeout(.rejoin, callId: current)),
                       [.signal(.hangup(callId: current)), .cancelTimers, .stopMedia(callId: current), ended("lost")])
        XCTAssertNil(machine.call)
    }

    func testRejoinAnsweredWithAnErrorEndsTheCallLost() {
        for callId in [current, nil] {
            var machine = drive(Script.rejoining)
            XCTAssertEqual(machine.handle(.serverError(callId: callId, message: "unknown call")),
                           [.signal(.hangup(callId: current)), .cancelTimers, .stopMedia(callId: current), ended("lost")])
        }
        var other = drive(Script.rejoining)
        XCTAssertEqual(other.handle(.serverError(callId: foreign, message: "unknown call")), [], "not about our call")
    }

    func testMediaLostMidCallEndsLostUnlessItComesBack() {
        var machine = drive(Script.acceptedConnected)
        XCTAssertEqual(machine.handle(.mediaDisconnected(callId: current)), [.startTimer(.connect, callId: current)])
        XCTAssertEqual(machine.handle(.mediaDisconnected(callId: current)), [], "once")
        XCTAssertEqual(machine.handle(.timeout(.connect, callId: current)),
                       [.signal(.hangup(callId: current)), .cancelTimers, .stopMedia(callId: current), ended("lost")])

        var recovers = drive(Script.mediaLost)
        XCTAssertEqual(recovers.handle(.mediaConnected(callId: current)),
                       [.cancelTimer(.connect), .emit(.mediaConnected(callId: current))])
        XCTAssertEqual(recovers.handle(.timeout(.connect, callId: current)), [], "a late timer does nothing")
        XCTAssertEqual(recovers.call?.phase, .accepted)
    }

    func testMediaDisconnectedBeforeItConnectedDoesNothing() {
        var machine = drive(Script.answerSent)
        XCTAssertEqual(machine.handle(.mediaDisconnected(callId: current)), [])
    }

    func testServerErrorForOurCallWhileMediaFlowsLetsTheCallGoOn() {
        for script in [Script.previewConnected, Script.acceptedConnected] {
            let start = drive(script)
            var machine = start
            XCTAssertEqual(machine.handle(.serverError(callId: current, message: "unknown call")), [])
            XCTAssertEqual(machine, start)
        }
    }

    func testServerErrorForOurCallWithoutMediaEndsItAfterTheGracePeriod() {
        var machine = drive(Script.answerSent)
        XCTAssertEqual(machine.handle(.serverError(callId: current, message: "unknown call")),
                       [.startTimer(.serverErrorGrace, callId: current)])
        XCTAssertEqual(machine.handle(.serverError(callId: current, message: "again")), [], "one grace period")
        XCTAssertEqual(machine.handle(.timeout(.serverErrorGrace, callId: current)),
                       [.signal(.reject(callId: current)), .cancelTimers, .stopRingtone, .stopMedia(callId: current),
                        ended("server-error")])
    }

    func testMediaConnectingDuringTheGracePeriodKeepsTheCall() {
        var machine = drive(Script.serverErrorWhileRinging)
        XCTAssertEqual(machine.handle(.mediaConnected(callId: current)),
                       [.cancelTimer(.connect), .cancelTimer(.serverErrorGrace),
                        .emit(.mediaConnected(callId: current))])
        XCTAssertEqual(machine.handle(.timeout(.serverErrorGrace, callId: current)), [])
        XCTAssertNotNil(machine.call)
    }

    func testServerErrorNamingNoCallOrAnotherCallLeavesOurCallAlone() {
        for event: Event in [.serverError(callId: nil, message: "already said hello"),
                             .serverError(callId: foreign, message: "unknown call")] {
            let start = drive(Script.answerSent)
            var machine = start
            XCTAssertEqual(machine.handle(event), [])
            XCTAssertEqual(machine, start)
        }
    }

    // MARK: Shutdown

    func testShutdownWhileRingingRejects() {
        var machine = drive(Script.answerSent)
        XCTAssertEqual(machine.handle(.shutdown),
                       [.signal(.reject(callId: current)), .cancelTimers, .stopRingtone,
                        .stopMedia(callId: current), ended("shutdown")])
        XCTAssertNil(machine.call)
    }

    func testShutdownAfterAcceptHangsUp() {
        var machine = drive(Script.acceptedConnected)
        XCTAssertEqual(machine.handle(.shutdown),
                       [.signal(.hangup(callId: current)), .cancelTimers, .stopMedia(callId: current),
                        ended("shutdown")])
    }

    func testShutdownWithNoCallDoesNothing() {
        for script in [Script.idle, Script.afterCall] {
            var machine = drive(script)
            XCTAssertEqual(machine.handle(.shutdown), [])
        }
    }

    // MARK: In-call controls

    func testMuteWhileRingingOrAcceptedButNotWithoutACall() {
        var idle = drive(Script.idle)
        XCTAssertEqual(idle.handle(.userMute(true)), [])
        for script in [Script.ringing, Script.answerSent, Script.previewConnected, Script.acceptPending,
                       Script.accepted, Script.acceptedConnected] {
            var machine = drive(script)
            XCTAssertEqual(machine.handle(.userMute(true)), [.setMicrophoneMuted(true)])
            XCTAssertEqual(machine.handle(.userMute(false)), [.setMicrophoneMuted(false)])
        }
    }

    func testOpenDoorIsRefusedBeforeAccept() {
        for script in [Script.ringing, Script.joined, Script.answerSent, Script.previewConnected, Script.acceptPending] {
            var machine = drive(script)
            let actions = machine.handle(.userOpenDoor)
            XCTAssertEqual(actions.count, 1)
            guard case .refuse(let text) = actions.first else { return XCTFail("\(actions)") }
            XCTAssertTrue(text.contains("accept"), text)
        }
        for script in [Script.idle, Script.afterCall] {
            var machine = drive(script)
            XCTAssertEqual(machine.handle(.userOpenDoor), [])
        }
    }

    func testOpenDoorAfterAcceptSendsItAndWaitsForTheDoor() {
        for script in [Script.accepted, Script.acceptedConnected] {
            var machine = drive(script)
            XCTAssertEqual(machine.handle(.userOpenDoor),
                           [.signal(.openDoor(callId: current)), .startTimer(.doorOpen, callId: current)])
            XCTAssertEqual(machine.handle(.userOpenDoor), [], "already asked")
            XCTAssertEqual(machine.handle(.doorOpenOk(callId: current)),
                           [.cancelTimer(.doorOpen), .emit(.doorOpened(callId: current))])
            XCTAssertEqual(machine.handle(.timeout(.doorOpen, callId: current)), [], "a late timer does nothing")
        }
    }

    func testNoDoorOpenOkInTimeIsReportedAndTheCallGoesOn() {
        var machine = drive(Script.doorOpening)
        XCTAssertEqual(machine.handle(.timeout(.doorOpen, callId: current)),
                       [.emit(.doorOpenFailed(callId: current, reason: .noReply))])
        XCTAssertEqual(machine.call?.phase, .accepted)
        XCTAssertEqual(machine.handle(.userOpenDoor),
                       [.signal(.openDoor(callId: current)), .startTimer(.doorOpen, callId: current)], "may try again")
    }

    func testOpenDoorWhileTheSocketIsDownIsNotQueued() {
        var machine = drive(Script.signalingDown)
        let actions = machine.handle(.userOpenDoor)
        XCTAssertFalse(actions.contains { if case .signal = $0 { true } else { false } }, "\(actions)")
        XCTAssertEqual(actions.first, .emit(.doorOpenFailed(callId: current, reason: .notConnected)))
        XCTAssertTrue(actions.contains { if case .refuse = $0 { true } else { false } })
        // Back online: nothing of it goes out with the rejoin.
        XCTAssertEqual(machine.handle(.signalingReconnected),
                       [.signal(.join(callId: current)), .startTimer(.rejoin, callId: current)])
    }

    func testRejoinSendsAnOpenDoorStillAwaitingItsReplyAfterTheJoin() {
        var machine = drive(Script.doorOpening + [.signalingLost])
        XCTAssertEqual(machine.handle(.signalingReconnected),
                       [.signal(.join(callId: current)), .startTimer(.rejoin, callId: current),
                        .signal(.openDoor(callId: current))])
    }

    func testDoorOpenOkIsShown() {
        var machine = drive(Script.acceptedConnected)
        XCTAssertEqual(machine.handle(.doorOpenOk(callId: current)),
                       [.emit(.doorOpened(callId: current))])
    }

    // MARK: Whole calls

    func testAnsweredCallFromRingToHangup() {
        var harness = Harness()
        var actions: [Action] = []
        for event: Event in [.incoming(callId: current, doorName: door), .joinOk(callId: current),
                             .offer(callId: current, sdp: offerSdp),
                             .localCandidate(callId: current, candidate: localCandidate),
                             .remoteCandidate(callId: current, candidate: remoteCandidate),
                             .userAccept, .answerCreated(callId: current, sdp: answerSdp),
                             .mediaConnected(callId: current), .firstFrame(callId: current), .userOpenDoor,
                             .doorOpenOk(callId: current), .userMute(true), .userHangup] {
            actions += harness.step(event)
        }
        XCTAssertEqual(actions, ringing() + [
            .startMedia(callId: current, offer: offerSdp, audioEnabled: false),
            .signal(.sendCandidate(callId: current, candidate: localCandidate)),
            .addRemoteCandidate(callId: current, candidate: remoteCandidate),
            .signal(.sendAnswer(callId: current, sdp: answerSdp)),
        ] + accepting() + [
            .cancelTimer(.connect), .emit(.mediaConnected(callId: current)),
            .emit(.firstFrame(callId: current)),
            .signal(.openDoor(callId: current)), .startTimer(.doorOpen, callId: current),
            .cancelTimer(.doorOpen), .emit(.doorOpened(callId: current)),
            .setMicrophoneMuted(true),
            .signal(.hangup(callId: current)), .cancelTimers, .stopMedia(callId: current), ended("hangup"),
        ])
        harness.shutDownAndCheckEveryRingEnded()
    }
}
