import CGStreamer
import Foundation
import XCTest
@testable import C1nkGLib
@testable import C1nkMedia
@testable import C1nkProbes
@testable import C1nkProtocol
@testable import C1nkSignaling

/// Waits on the GLib main context (where every library object lives) until
/// `condition` holds; fails the test after `timeout` seconds.
@discardableResult
func waitUntil(_ what: String, timeout: Double = 10, file: StaticString = #filePath, line: UInt = #line,
               _ condition: () -> Bool) -> Bool {
    let ok = MainContext.run(timeout: timeout, until: condition)
    if !ok { XCTFail("timed out after \(timeout) s waiting for \(what)", file: file, line: line) }
    return ok
}

/// Records a signaling client's events with the monotonic time they arrived.
final class SignalEventRecorder {
    private(set) var events: [(time: Double, event: SignalEvent)] = []

    func attach(to client: SignalClient) {
        client.onEvent = { [weak self] event in self?.record(event) }
    }

    func record(_ event: SignalEvent) { events.append((MainContext.monotonicSeconds(), event)) }

    var messages: [ServerMessage] {
        events.compactMap { if case .message(let m) = $0.event { return m } else { return nil } }
    }
    var protocolErrors: [ProtocolError] {
        events.compactMap { if case .protocolError(let e) = $0.event { return e } else { return nil } }
    }
    func count(_ predicate: (SignalEvent) -> Bool) -> Int { events.filter { predicate($0.event) }.count }
    func contains(_ message: ServerMessage) -> Bool { messages.contains(message) }
    var readyCount: Int { count { if case .ready = $0 { return true } else { return false } } }
    var disconnectCount: Int { count { if case .disconnected = $0 { return true } else { return false } } }
}

/// A bare door on the door protocol, for signaling tests without media.
final class TestDoor {
    let socket: MessageSocket<ServerToDoorMessage>
    private(set) var received: [ServerToDoorMessage] = []

    init(url: String, name: String = "Hlavný vchod", doorId: String = "test-door") throws {
        let connector = try WebSocketConnector(trustedCAFile: nil)
        var result: Result<WebSocketConnection, GLibError>?
        connector.connect(to: url) { result = $0 }
        MainContext.run(timeout: 5) { result != nil }
        socket = MessageSocket(try result!.get(), log: Log.server)
        socket.onMessage = { [weak self] in self?.received.append($0) }
        socket.send(DoorMessage.hello(doorId: doorId, doorName: name))
        MainContext.run(timeout: 5) { self.received.contains(.helloOk(doorId: doorId)) }
    }

    func send(_ message: DoorMessage) { socket.send(message) }

    /// Rings and returns the callId the server created.
    func ring() -> String? {
        send(.ring)
        var callId: String?
        MainContext.run(timeout: 5) {
            callId = received.lazy.compactMap { if case .ringOk(let id) = $0 { return id } else { return nil } }.last
            return callId != nil
        }
        return callId
    }

    /// Waits for the pong to a ping sent now: the door has everything the
    /// server sent it before.
    func roundTrip(file: StaticString = #filePath, line: UInt = #line) {
        let pongs = received.filter { $0 == .pong }.count
        send(.ping)
        waitUntil("the door's round trip", file: file, line: line) { received.filter { $0 == .pong }.count > pongs }
    }

    func joins() -> [String] {
        received.compactMap { if case .join(_, let peer) = $0 { return peer } else { return nil } }
    }
}

func temporaryDirectory() -> String {
    let path = NSTemporaryDirectory() + "c1nk-test-" + UUID().uuidString.prefix(8)
    try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

/// Waits until `client`'s server has read everything the client sent so far
/// (a ping/pong round trip): the barrier before asserting something did not happen.
func roundTrip(_ client: SignalClient, file: StaticString = #filePath, line: UInt = #line) {
    var done = false
    client.afterRoundTrip { done = true }
    waitUntil("a round trip to the server", file: file, line: line) { done }
}

/// Fast timing for tests: the same rules as the defaults (ping 25 s, pong within 40 s, backoff 1 s doubling to 30 s), scaled down.
let fastTiming = SignalTiming(pingInterval: 0.2, pongTimeout: 0.6, initialBackoff: 0.1, maximumBackoff: 0.8)

func makeClient(_ url: String, deviceId: String = UUID().uuidString, timing: SignalTiming = fastTiming) throws -> SignalClient {
    var configuration = SignalClient.Configuration(url: url, deviceId: deviceId)
    configuration.timing = timing
    return try SignalClient(configuration)
}

/// Counts the buffers reaching the sink pad of the element `name` in `pipeline`.
func countBuffers(atElementNamed name: String, in pipeline: UnsafeMutablePointer<GstElement>) -> FrameCounter {
    let counter = FrameCounter()
    let element = Gst.find(name, in: pipeline)!
    let pad = gst_element_get_static_pad(element, "sink")!
    PadProbe.add(pad, GST_PAD_PROBE_TYPE_BUFFER) { _ in
        counter.value.add(1, ordering: .relaxed)
        return GST_PAD_PROBE_OK
    }
    gst_object_unref(UnsafeMutableRawPointer(pad))
    gst_object_unref(UnsafeMutableRawPointer(element))
    return counter
}
