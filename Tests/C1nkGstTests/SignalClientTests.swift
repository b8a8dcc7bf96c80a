import Foundation
import XCTest
@testable import C1nkCall
@testable import C1nkGLib
@testable import C1nkLocal
@testable import C1nkProtocol
@testable import C1nkSignaling

/// The real client against the real local server over loopback.
final class SignalClientTests: XCTestCase {
    override func setUp() { Log.echoToStandardError = false }
    override func tearDown() { Log.echoToStandardError = true }

    func testHelloAndDeviceIdPersistAcrossRestarts() throws {
        let server = try SignalServer()
        let path = temporaryDirectory() + "/state/c1nk/device-id"
        let first = try DeviceIdentity.loadOrCreate(at: path) { XCTFail("unexpected warning \($0)") }
        var mode = stat()
        stat(path, &mode)
        XCTAssertEqual(mode.st_mode & 0o777, 0o600)

        let client = try makeClient(server.url, deviceId: first.id)
        let recorder = SignalEventRecorder()
        recorder.attach(to: client)
        client.start()
        waitUntil("hello-ok") { recorder.contains(.helloOk(deviceId: first.id)) }
        XCTAssertEqual(server.connectedAppIds, [first.id])
        client.stop()

        let second = try DeviceIdentity.loadOrCreate(at: path) { XCTFail("unexpected warning \($0)") }
        XCTAssertEqual(second.id, first.id, "the id survives a restart")
    }

    func testServerAssignedDeviceIdIsStored() throws {
        let server = try SignalServer()
        let path = temporaryDirectory() + "/device-id"
        let client = try makeClient(server.url, deviceId: "")
        var assigned: String?
        client.onDeviceIdAssigned = { id in
            assigned = id
            _ = try? DeviceIdentity.store(id, at: path)
        }
        client.start()
        waitUntil("an assigned id") { assigned != nil }
        XCTAssertEqual(try DeviceIdentity.loadOrCreate(at: path) { _ in }.id, assigned)
        client.stop()
    }

    func testCorruptIdentityFileIsReplacedWithAWarning() throws {
        let path = temporaryDirectory() + "/device-id"
        try "{not json".write(toFile: path, atomically: true, encoding: .utf8)
        var warnings: [String] = []
        let identity = try DeviceIdentity.loadOrCreate(at: path) { warnings.append($0) }
        XCTAssertNotNil(UUID(uuidString: identity.id))
        XCTAssertEqual(warnings.count, 1)
        XCTAssertTrue(warnings[0].contains("corrupt"), warnings[0])
        XCTAssertEqual(try DeviceIdentity.loadOrCreate(at: path) { _ in }.id, identity.id)
    }

    func testABareFileNameKeepsTheIdInTheCurrentDirectory() throws {
        let directory = temporaryDirectory()
        let previous = FileManager.default.currentDirectoryPath
        XCTAssertTrue(FileManager.default.changeCurrentDirectoryPath(directory))
        defer { FileManager.default.changeCurrentDirectoryPath(previous) }
        let identity = try DeviceIdentity.loadOrCreate(at: "device-id") { _ in }
        XCTAssertTrue(FileManager.default.fileExists(atPath: directory + "/device-id"))
        XCTAssertEqual(try DeviceIdentity.loadOrCreate(at: "device-id") { _ in }.id, identity.id)
    }

    func testBackoffScheduleWhileServerIsDown() throws {
        let port = try SignalServer().port // free a port: the server is gone when this line ends
        let client = try makeClient("ws://127.0.0.1:\(port)/ws")
        let recorder = SignalEventRecorder()
        recorder.attach(to: client)
        client.start()
        func failures() -> [(time: Double, retryIn: Double)] {
            recorder.events.compactMap { entry in
                if case .connectFailed(_, let retry) = entry.event { return (entry.time, retry) } else { return nil }
            }
        }
        waitUntil("seven failed attempts", timeout: 15) { failures().count >= 7 }
        client.stop()
        let observed = failures()
        XCTAssertEqual(observed.prefix(7).map(\.retryIn), [0.1, 0.2, 0.4, 0.8, 0.8, 0.8, 0.8])
        // Measured: each attempt starts after the announced delay (and not much later).
        for i in 1..<7 {
            let gap = observed[i].time - observed[i - 1].time
            XCTAssertGreaterThanOrEqual(gap, observed[i - 1].retryIn * 0.9, "gap \(i)")
            // A loaded machine may add delay, never take it away: a generous ceiling.
            XCTAssertLessThan(gap, observed[i - 1].retryIn * 2 + 0.5, "gap \(i)")
        }
    }

    func testReconnectsAfterServerRestartAndBackoffResets() throws {
        var server: SignalServer? = try SignalServer()
        let port = server!.port
        let client = try makeClient(server!.url)
        let recorder = SignalEventRecorder()
        recorder.attach(to: client)
        client.start()
        waitUntil("first hello-ok") { recorder.readyCount == 1 }

        server = nil // the server goes away
        waitUntil("disconnected") { recorder.disconnectCount == 1 }
        // The server comes back once the client's backoff has grown (to 0.4 s: the next would be 0.8 s).
        waitUntil("failed attempts while the server is away") {
            recorder.count { if case .connectFailed(_, let retryIn) = $0 { return retryIn >= 0.4 } else { return false } } >= 1
        }
        var options = SignalServer.Options()
        options.port = port
        server = try SignalServer(options)
        waitUntil("hello-ok after the restart") { recorder.readyCount == 2 }
        XCTAssertEqual(server?.connectedAppIds.count, 1)

        // A healthy connection resets the backoff: the first retry after this drop
        // comes after the initial delay, and the one after it doubles from there.
        server = nil
        waitUntil("disconnected again") { recorder.disconnectCount == 2 }
        let dropped = recorder.events.last { if case .disconnected = $0.event { return true } else { return false } }!.time
        waitUntil("a failed attempt") {
            recorder.events.contains { $0.time > dropped && { if case .connectFailed = $0 { return true } else { return false } }($0.event) }
        }
        let failure = recorder.events.first { $0.time > dropped && { if case .connectFailed = $0 { return true } else { return false } }($0.event) }!
        XCTAssertEqual(failure.event, .connectFailed(reason: { if case .connectFailed(let r, _) = failure.event { return r } else { return "" } }(), retryIn: 0.2))
        XCTAssertLessThan(failure.time - dropped, 0.8, "well before the 0.8 s the old backoff would wait")
        client.stop()
    }

    func testPingsKeepTheConnectionAndTheWatchdogDropsASilentServer() throws {
        let server = try SignalServer()
        // A pong timeout of five ping intervals: a busy machine must not trip it.
        let client = try makeClient(server.url, timing: SignalTiming(pingInterval: 0.2, pongTimeout: 1, initialBackoff: 0.1, maximumBackoff: 0.8))
        let recorder = SignalEventRecorder()
        recorder.attach(to: client)
        client.start()
        waitUntil("hello-ok") { recorder.readyCount == 1 }

        // Eleven pongs are eleven ping intervals, more than two pong timeouts.
        waitUntil("eleven pongs") { recorder.messages.filter { $0 == .pong }.count >= 11 || recorder.disconnectCount > 0 }
        XCTAssertEqual(recorder.disconnectCount, 0, "pongs keep the connection alive")
        XCTAssertGreaterThanOrEqual(recorder.messages.filter { $0 == .pong }.count, 11)

        server.answersPings = false
        let silentSince = MainContext.monotonicSeconds()
        waitUntil("the watchdog to drop the connection") { recorder.disconnectCount == 1 }
        let waited = MainContext.monotonicSeconds() - silentSince
        XCTAssertGreaterThan(waited, 0.5)
        waitUntil("a reconnect") { recorder.readyCount == 2 }
        client.stop()
    }

    func testMessagesSentWhileDisconnectedGoOutAfterHello() throws {
        let server = try SignalServer()
        let door = try TestDoor(url: server.url)
        let client = try makeClient(server.url)
        let recorder = SignalEventRecorder()
        recorder.attach(to: client)
        // The call must exist for the join to be accepted; ring with no app connected.
        let callId = try XCTUnwrap(door.ring())
        client.send(.join(callId: callId)) // before the socket exists
        XCTAssertEqual(client.queuedCount, 1)
        client.start()
        waitUntil("join-ok") { recorder.contains(.joinOk(callId: callId)) }
        let helloOk = recorder.messages.firstIndex { if case .helloOk = $0 { return true } else { return false } }
        let joinOk = recorder.messages.firstIndex(of: .joinOk(callId: callId))
        XCTAssertNotNil(helloOk)
        XCTAssertLessThan(helloOk!, joinOk!, "hello goes first, then the queue")
        waitUntil("the door to see the join") { door.joins().count == 1 }
        client.stop()
    }

    func testRejoinOrderIsHelloJoinQueueThenWhatTheDeadSocketMayHaveLost() throws {
        let server = try SignalServer()
        var wire: [ClientMessage] = []
        server.onAppMessage = { _, message in if message != .ping { wire.append(message) } }
        // Slow pings and a patient watchdog: only the test drops the socket.
        let client = try makeClient(server.url, timing: SignalTiming(pingInterval: 30, pongTimeout: 60,
                                                                     initialBackoff: 0.1, maximumBackoff: 0.8))
        let recorder = SignalEventRecorder()
        var connects = 0
        client.onEvent = { event in
            recorder.record(event)
            // The app rejoins its call when the socket comes back.
            if case .connected = event {
                connects += 1
                if connects > 1 { client.send(.join(callId: "c1")) }
            }
        }
        client.start()
        waitUntil("hello-ok") { recorder.readyCount == 1 }

        // Sent on a socket whose server stops answering: no pong confirms it.
        server.answersPings = false
        client.send(.accept(callId: "c1"))
        client.send(.openDoor(callId: "c1"))
        XCTAssertEqual(client.unconfirmedCount, 1, "accept awaits its pong; open-door is the call's to repeat")
        var delivered = false
        server.answersPings = true
        client.afterRoundTrip { delivered = true }
        waitUntil("a round trip") { delivered }
        XCTAssertEqual(client.unconfirmedCount, 0, "a pong confirms everything sent before its ping")

        server.answersPings = false
        client.send(.hangup(callId: "c1"))
        XCTAssertEqual(client.unconfirmedCount, 1)
        server.dropAppConnections()
        waitUntil("disconnected") { recorder.disconnectCount == 1 }
        client.send(.sendAnswer(callId: "c1", sdp: "v=0 queued")) // while the socket is down
        wire.removeAll()
        server.answersPings = true
        waitUntil("reconnected and resent") { wire.count >= 4 }
        XCTAssertEqual(wire.map(\.type), ["hello", "join", "answer", "hangup"],
                       "hello, the rejoin, the queue, then the hangup the dead socket may have lost")
        delivered = false
        client.afterRoundTrip { delivered = true }
        waitUntil("a round trip") { delivered }
        XCTAssertEqual(client.unconfirmedCount, 0)
        XCTAssertEqual(wire.count, 4, "nothing sent twice on the new socket")
        client.stop()
    }

    func testMalformedFramesAreRefusedAndTheConnectionGoesOn() throws {
        let server = try SignalServer()
        let client = try makeClient(server.url, timing: SignalTiming())
        let recorder = SignalEventRecorder()
        recorder.attach(to: client)
        client.start()
        waitUntil("hello-ok") { recorder.readyCount == 1 }

        let frames: [(String, ProtocolError)] = [
            ("this is not json", .notJSON),
            ("[\"an\", \"array\"]", .notAnObject),
            (#"{"callId":"x"}"#, .missingType),
            (#"{"type":"fireworks"}"#, .unknownType("fireworks")),
            (#"{"type":"incoming","doorName":"x"}"#, .missingField(type: "incoming", field: "callId")),
            (#"{"type":"offer","callId":["x"],"sdp":"v=0"}"#, .wrongFieldType(type: "offer", field: "callId")),
        ]
        for (text, _) in frames { server.sendRawToApps(text) }
        let big = String(repeating: "x", count: 300_000)
        server.sendRawToApps(#"{"type":"offer","callId":"c","sdp":"\#(big)"}"#)
        server.sendBinaryToApps([1, 2, 3, 4])
        let expected = frames.map(\.1) + [.oversized(bytes: big.utf8.count + 38, limit: WireCodec.maximumFrameBytes),
                                          .binaryFrame(bytes: 4)]
        waitUntil("every refusal") { recorder.protocolErrors.count == expected.count }
        XCTAssertEqual(recorder.protocolErrors, expected)

        // …and a normal exchange still works on the same connection.
        client.send(message: .registerToken(deviceId: client.configuration.deviceId, voipToken: "", bundleId: "eu.c1nk.app"))
        waitUntil("token-ok") { recorder.contains(.tokenOk) }
        XCTAssertEqual(recorder.disconnectCount, 0)
        client.stop()
    }

    func testTwoAppsOneDoorFirstAcceptWins() throws {
        let server = try SignalServer()
        let door = try TestDoor(url: server.url)
        let (alice, bob) = (try makeClient(server.url), try makeClient(server.url))
        let (a, b) = (SignalEventRecorder(), SignalEventRecorder())
        a.attach(to: alice)
        b.attach(to: bob)
        alice.start()
        bob.start()
        waitUntil("both connected") { a.readyCount == 1 && b.readyCount == 1 }

        let callId = try XCTUnwrap(door.ring())
        waitUntil("both ring") {
            a.contains(.incoming(callId: callId, doorName: "Hlavný vchod")) && b.contains(.incoming(callId: callId, doorName: "Hlavný vchod"))
        }
        alice.send(.join(callId: callId))
        bob.send(.join(callId: callId))
        waitUntil("the door sees two peers") { door.joins().count == 2 }
        for (index, peer) in door.joins().enumerated() {
            door.send(.offer(callId: callId, peerId: peer, sdp: "sdp-for-\(index)"))
        }
        waitUntil("each app gets its own offer") {
            a.messages.contains { if case .offer = $0 { return true } else { return false } }
                && b.messages.contains { if case .offer = $0 { return true } else { return false } }
        }
        alice.send(.sendAnswer(callId: callId, sdp: "alice-answer"))
        alice.send(.sendCandidate(callId: callId, candidate: IceCandidate(candidate: "candidate:a", sdpMid: "0", sdpMLineIndex: 0)))
        waitUntil("the door gets alice's answer and candidate") {
            door.received.contains { if case .answer(_, _, "alice-answer") = $0 { return true } else { return false } }
                && door.received.contains { if case .ice = $0 { return true } else { return false } }
        }

        alice.send(.accept(callId: callId))
        waitUntil("bob is told it was answered elsewhere") { b.contains(.callEnd(callId: callId, reason: "answered-elsewhere")) }
        XCTAssertTrue(door.received.contains { if case .accept = $0 { return true } else { return false } })
        XCTAssertTrue(door.received.contains { if case .leave(_, _, "answered-elsewhere") = $0 { return true } else { return false } })
        XCTAssertFalse(a.messages.contains { if case .callEnd = $0 { return true } else { return false } })

        // A late accept from bob does not steal the call.
        bob.send(.accept(callId: callId))
        roundTrip(bob)
        door.roundTrip()
        XCTAssertEqual(door.received.filter { if case .accept = $0 { return true } else { return false } }.count, 1)

        alice.send(.openDoor(callId: callId))
        waitUntil("the door is asked to open") { door.received.contains { if case .openDoor = $0 { return true } else { return false } } }
        door.send(.doorOpened(callId: callId))
        waitUntil("door-open-ok") { a.contains(.doorOpenOk(callId: callId)) }

        alice.send(.hangup(callId: callId))
        waitUntil("the door hears the hangup") { door.received.contains(.callEnd(callId: callId, reason: "hangup")) }
        XCTAssertTrue(server.activeCallIds.isEmpty)
        alice.stop()
        bob.stop()
    }

    func testUnknownCallAndMessagesBeforeHelloGetErrors() throws {
        let server = try SignalServer()
        let client = try makeClient(server.url)
        let recorder = SignalEventRecorder()
        recorder.attach(to: client)
        client.start()
        waitUntil("hello-ok") { recorder.readyCount == 1 }
        client.send(.join(callId: "no-such-call"))
        waitUntil("an error") { recorder.contains(.error(message: "unknown call no-such-call", callId: "no-such-call")) }
        client.stop()
    }
}
