import Foundation
import Glibc
import XCTest
@testable import C1nkAnswerer
@testable import C1nkCall
@testable import C1nkGLib
@testable import C1nkHome
@testable import C1nkMQTT
@testable import C1nkSignaling

/// The answerer on a real `mosquitto` (loopback, password file): discovery,
/// the ring, commands and their refusals, retained commands, a broker that
/// goes away mid-call. The call runs on an in-memory signaller with scripted
/// media and a manual clock; the MQTT client's retries use the same clock.
final class MQTTTests: XCTestCase {
    private let door = "Hlavný vchod"
    private let prefix = "c1nk/test-device"
    private var broker: MQTTBroker!
    private var observer: MQTTObserver!
    private var signaller: InMemorySignaller!
    private var media: ScriptedCallMedia.Factory!
    private var events: EventLog!
    private var answerer: Answerer!
    private var clock: ManualClock!
    private var home: HomeMQTT!
    private var statuses: [MQTTClient.Status] = []

    private var topics: HomeTopics { HomeTopics(prefix: prefix) }

    override func setUpWithError() throws {
        Log.echoToStandardError = false
        broker = try MQTTBroker()
        observer = try MQTTObserver(broker)
        signaller = InMemorySignaller()
        media = ScriptedCallMedia.Factory()
        events = EventLog()
        clock = ManualClock()
        answerer = Answerer(signaller: signaller, options: CallHarness.answererOptions(), events: events,
                            makeMedia: media.make, clock: clock)
    }

    override func tearDown() {
        home?.stop()
        home = nil
        observer = nil
        answerer = nil
        broker?.stop()
        broker = nil
        Log.echoToStandardError = true
    }

    /// The answerer's link, started and connected; accept and open need the code 4711.
    private func startHome(_ settings: MQTTSettings? = nil, waitConnected: Bool = true) throws {
        let discovery = HomeAssistantDiscovery(deviceId: "test-device", deviceName: "C1nk test", topics: topics)
        home = try HomeMQTT(settings: settings ?? broker.settings(clientId: "answerer"), discovery: discovery,
                            openCode: HomeOpenCode("4711"), clock: clock)
        home.command = { [unowned self] in self.answerer.command($0) }
        home.onStatus = { [unowned self] in self.statuses.append($0) }
        events.onEvent = { [unowned self] event, _ in self.home.send(event) }
        home.start()
        answerer.start()
        signaller.connect()
        if waitConnected { waitUntil("the answerer's link connected") { self.home.client.isConnected } }
    }

    private func ring(_ callId: String = "c1") throws -> ScriptedCallMedia {
        signaller.receive(.incoming(callId: callId, doorName: door))
        signaller.receive(.joinOk(callId: callId))
        signaller.receive(.offer(callId: callId, sdp: "v=0 offer"))
        let session = try XCTUnwrap(media.latest)
        session.answer()
        return session
    }

    private func send(_ text: String, retain: Bool = false) {
        observer.client.publish(MQTTMessage(topic: topics.command, text: text, retain: retain))
    }

    /// `word` with the right code, as Home Assistant's lock sends it.
    private func coded(_ word: String) -> String { #"{"command":"\#(word)","code":"4711"}"# }

    private func errors() -> [String] { observer.on(topics.error).compactMap { observer.json($0)["message"] as? String } }

    private func doorbellEvents() -> [[String: Any]] { observer.on(topics.event).map(observer.json) }

    func testDiscoveryIsRetainedOnConnectAndPublishedAgainWhenHomeAssistantComesOnline() throws {
        try startHome()
        let discoveryTopic = "homeassistant/device/test-device/config"
        waitUntil("discovery and availability") {
            !self.observer.on(discoveryTopic).isEmpty && self.observer.on(self.topics.availability).map(self.observer.text).last == "online"
        }
        let config = try XCTUnwrap(observer.on(discoveryTopic).last)
        let components = try XCTUnwrap(observer.json(config)["cmps"] as? [String: [String: Any]])
        XCTAssertEqual(components["doorbell"]?["device_class"] as? String, "doorbell")
        XCTAssertEqual(components["door"]?["command_topic"] as? String, topics.command)

        // A newcomer gets it from the broker: it was retained.
        let late = try MQTTObserver(broker)
        // Retained messages come in no set order: wait for all three.
        waitUntil("the retained discovery, availability and server link") {
            late.on(discoveryTopic).contains { $0.retain }
                && late.on(self.topics.availability).last.map(late.text) == "online"
                && late.on(self.topics.server).last.map(late.text) == "ON"
        }

        // Home Assistant's birth message: discovery again.
        let before = observer.on(discoveryTopic).count
        observer.client.publish(MQTTMessage(topic: HomeTopics.homeAssistantStatus, text: "online"))
        waitUntil("discovery again") { self.observer.on(discoveryTopic).count > before }
    }

    func testAStopSaysOfflineThoughNoLastWillIsSent() throws {
        try startHome()
        waitUntil("online") { self.observer.on(self.topics.availability).last.map(self.observer.text) == "online" }
        home.stop()
        waitUntil("offline") { self.observer.on(self.topics.availability).last.map(self.observer.text) == "offline" }
        let late = try MQTTObserver(broker)
        waitUntil("offline is retained") { late.on(self.topics.availability).last.map(late.text) == "offline" }
    }

    func testARingReachesTheBrokerWithTheDoorAndTheCallIdAtOnce() throws {
        try startHome()
        signaller.receive(.incoming(callId: "c1", doorName: door))
        waitUntil("the ring on the broker") { self.doorbellEvents().contains { $0["event_type"] as? String == "ring" } }
        // From the `ringing` event to another client holding the ring, through the broker (goal ≤ 50 ms).
        let rang = try XCTUnwrap(events.events.first { $0.event.kind == .ringing }?.t)
        let arrived = try XCTUnwrap(observer.arrival(topics.event) { self.observer.json($0)["event_type"] as? String == "ring" })
        print("mqtt: ringing → a subscriber holds the ring in \(arrived - rang) ms")
        XCTAssertLessThan(arrived - rang, 250, "the ring is published as it happens, not batched")
        let ring = try XCTUnwrap(doorbellEvents().first { $0["event_type"] as? String == "ring" })
        XCTAssertEqual(ring["door"] as? String, door)
        XCTAssertEqual(ring["callId"] as? String, "c1")
        XCTAssertFalse(observer.on(topics.event).contains(where: \.retain), "events are never retained")
        waitUntil("the call state") { self.observer.on(self.topics.call).last.map { self.observer.json($0)["state"] as? String } == "ringing" }
        XCTAssertEqual(observer.on(topics.call).last.map { observer.json($0)["door"] as? String }, door)
    }

    func testOpenBeforeAcceptIsRefusedOnTheErrorTopicAndCommandsAfterAcceptReachTheAnswerer() throws {
        try startHome()
        let session = try ring()
        send(coded("open"))
        waitUntil("the refusal") { !self.errors().isEmpty }
        XCTAssertEqual(errors(), ["the door opens only once you have accepted the call: accept first, then open"])
        let refusal = try XCTUnwrap(observer.on(topics.error).last)
        XCTAssertEqual(observer.json(refusal)["command"] as? String, "open")
        XCTAssertEqual(observer.json(refusal)["callId"] as? String, "c1")
        XCTAssertFalse(refusal.retain)
        XCTAssertFalse(signaller.sent.contains(.openDoor(callId: "c1")), "no open-door before accept")

        send(coded("accept"))
        waitUntil("the accept") { self.events.events.contains { $0.event.kind == .accepted } }
        session.connect()
        send(coded("open"))
        waitUntil("the open-door sent") { self.signaller.sent.contains(.openDoor(callId: "c1")) }
        signaller.receive(.doorOpenOk(callId: "c1"))
        waitUntil("door_opened on the broker") { self.doorbellEvents().contains { $0["event_type"] as? String == "door_opened" } }

        send("mute")
        waitUntil("the mute state") { self.observer.on(self.topics.mute).last.map(self.observer.text) == "ON" }
        send("hangup")
        waitUntil("the end") { self.events.events.contains { $0.event.kind == .ended } }
        waitUntil("idle") { self.observer.on(self.topics.call).last.map { self.observer.json($0)["state"] as? String } == "idle" }

        send(coded("open"))
        waitUntil("a command for a call that ended is refused") { self.errors().last == "no call in progress" }
    }

    func testARetainedCommandLeftOnTheBrokerIsIgnored() throws {
        // Someone left "accept" and "open" retained on the command topic.
        send(coded("accept"), retain: true)
        observer.client.publish(MQTTMessage(topic: topics.command, text: coded("open"), retain: true))
        let probe = try MQTTObserver(broker)
        waitUntil("the retained command is on the broker") { probe.on(self.topics.command).contains { $0.retain } }

        try startHome()
        _ = try ring("c1")
        // A live command after the retained one: once it is answered, the retained one was seen and ignored.
        send("dance")
        waitUntil("the live command's refusal") { self.errors().contains { $0.contains("unknown command 'dance'") } }
        XCTAssertFalse(events.events.contains { $0.event.kind == .accepted }, "the retained accept was not obeyed")
        XCTAssertFalse(signaller.sent.contains(.openDoor(callId: "c1")))
        XCTAssertEqual(errors().count, 1, "nothing was said about the retained commands")
    }

    func testOversizedAndNonUTF8PayloadsAreRefused() throws {
        try startHome()
        _ = try ring()
        observer.client.publish(MQTTMessage(topic: topics.command, payload: Array(repeating: UInt8(ascii: "o"), count: 1_000_000)))
        observer.client.publish(MQTTMessage(topic: topics.command, payload: [0x6f, 0x70, 0xff, 0x65, 0x6e]))
        waitUntil("two refusals") { self.errors().count == 2 }
        XCTAssertTrue(errors()[0].contains("1000000 bytes is over the limit of 65536"), errors()[0])
        XCTAssertTrue(errors()[1].contains("not UTF-8"), errors()[1])
        XCTAssertFalse(events.events.contains { $0.event.kind == .accepted })
    }

    func testARefusedLoginIsReportedAndTriedAgain() throws {
        try startHome(broker.settings(clientId: "answerer", password: "wrong"), waitConnected: false)
        waitUntil("the refusal") { !self.statuses.isEmpty }
        guard case let .connectFailed(reason, retryIn) = statuses[0] else { return XCTFail("\(statuses)") }
        XCTAssertTrue(reason.contains("refused") && reason.contains("--mqtt-password-file"), reason)
        XCTAssertEqual(retryIn, 0.5)
        clock.advance(by: retryIn)
        waitUntil("the second refusal") { self.statuses.count == 2 }
        XCTAssertEqual(statuses[1], .connectFailed(reason: reason, retryIn: 1), "the backoff doubles")
        // The call goes on without the broker.
        signaller.receive(.incoming(callId: "c1", doorName: door))
        XCTAssertNil(answerer.command("accept"))
    }

    func testABrokerKilledMidCallLeavesTheCallAndTheClientReconnectsWhenItIsBack() throws {
        try startHome()
        let session = try ring()
        XCTAssertNil(answerer.command("accept"))
        session.connect()
        waitUntil("in_call on the broker") {
            self.observer.on(self.topics.call).last.map { self.observer.json($0)["state"] as? String } == "in_call"
        }

        broker.stop()
        waitUntil("the loss noticed") { self.statuses.contains { if case .disconnected = $0 { return true } else { return false } } }
        XCTAssertFalse(home.client.isConnected)
        XCTAssertNil(answerer.command("mute"), "the call goes on")
        XCTAssertEqual(answerer.currentCallId, "c1")

        // Not back yet: the retry fails and says so.
        clock.advance(by: 0.5)
        waitUntil("a failed retry") { self.statuses.contains { if case .connectFailed = $0 { return true } else { return false } } }

        try broker.start()
        let observer = try MQTTObserver(broker)
        clock.advance(by: 2)
        waitUntil("reconnected") { self.home.client.isConnected }
        waitUntil("the state published again") {
            observer.on(self.topics.call).last.map { observer.json($0)["state"] as? String } == "in_call"
                && observer.on(self.topics.mute).last.map(observer.text) == "ON"
                && observer.on(self.topics.availability).last.map(observer.text) == "online"
        }
        XCTAssertEqual(answerer.currentCallId, "c1", "the same call")
    }

    func testABrokerUnreachableAtStartUpIsReportedAndJoinedWhenItComes() throws {
        observer = nil
        broker.stop()
        try startHome(waitConnected: false)
        waitUntil("the failed connection") { !self.statuses.isEmpty }
        guard case let .connectFailed(reason, retryIn) = statuses[0] else { return XCTFail("\(statuses)") }
        XCTAssertTrue(reason.contains("refused"), reason)
        signaller.receive(.incoming(callId: "c1", doorName: door))
        XCTAssertEqual(answerer.currentCallId, "c1", "calls go on without the broker")

        try broker.start()
        let observer = try MQTTObserver(broker)
        clock.advance(by: retryIn)
        waitUntil("connected once the broker is up") { self.home.client.isConnected }
        waitUntil("discovery and the ringing state") {
            !observer.on("homeassistant/device/test-device/config").isEmpty
                && observer.on(self.topics.call).last.map { observer.json($0)["state"] as? String } == "ringing"
        }
    }

    func testAPasswordFileOthersCanReadIsRefused() throws {
        let directory = temporaryDirectory()
        let path = directory + "/mqtt-password"
        try "door s3cret\n".write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, 0o644)
        XCTAssertThrowsError(try MQTTPasswordFile.read(path)) { error in
            XCTAssertEqual("\(error)", "the MQTT password file \(path) can be read by others (mode 644); make it owner-only: chmod 600 \(path)")
        }
        chmod(path, 0o600)
        XCTAssertEqual(try MQTTPasswordFile.read(path), "door s3cret")
        XCTAssertThrowsError(try MQTTPasswordFile.read(directory + "/none")) { error in
            XCTAssertTrue("\(error)".contains("No such file or directory"), "\(error)")
        }
    }

    func testBrokerAddresses() throws {
        let plain = try MQTTSettings(url: "mqtt://broker.lan", clientId: "x")
        XCTAssertEqual([plain.host, String(plain.port), String(plain.tls)], ["broker.lan", "1883", "false"])
        let secure = try MQTTSettings(url: "mqtts://[::1]:8884", clientId: "x")
        XCTAssertEqual([secure.host, String(secure.port), String(secure.tls)], ["::1", "8884", "true"])
        for bad in ["http://x", "mqtt://", "mqtt://x:99999", "mqtt://user:pw@x", "mqtt://x:port"] {
            XCTAssertThrowsError(try MQTTSettings(url: bad, clientId: "x"), bad) { error in
                XCTAssertTrue("\(error)".contains("mqtt://host:1883"), "\(error)")
            }
        }
    }
}
