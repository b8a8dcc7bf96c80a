import Foundation
import Glibc
import XCTest
@testable import C1nkAnswerer
@testable import C1nkCall
@testable import C1nkGLib
@testable import C1nkHome
@testable import C1nkMQTT
@testable import C1nkSignaling

/// Opening over MQTT needs the code, on a real `mosquitto`: wrong, missing
/// and right codes for accept and open, five wrong codes a ring, no code
/// file (nothing accepts or opens, and discovery says so), a payload over
/// the limit that the client never copies, and the snapshot not retained
/// unless asked. The call runs on an in-memory signaller with scripted media.
final class MQTTOpenCodeTests: XCTestCase {
    private let prefix = "c1nk/hall"
    private var topics: HomeTopics { HomeTopics(prefix: prefix) }
    private var broker: MQTTBroker!
    private var observer: MQTTObserver!
    private var signaller: InMemorySignaller!
    private var media: ScriptedCallMedia.Factory!
    private var events: EventLog!
    private var answerer: Answerer!
    private var home: HomeMQTT!

    override func setUpWithError() throws {
        Log.echoToStandardError = false
        broker = try MQTTBroker()
        observer = try MQTTObserver(broker)
        signaller = InMemorySignaller()
        media = ScriptedCallMedia.Factory()
        events = EventLog()
        answerer = Answerer(signaller: signaller, options: CallHarness.answererOptions(), events: events,
                            makeMedia: media.make, clock: ManualClock())
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

    private func startHome(code: String?, retainSnapshot: Bool = false) throws {
        let discovery = HomeAssistantDiscovery(deviceId: "hall", deviceName: "C1nk hall", topics: topics)
        home = try HomeMQTT(settings: broker.settings(clientId: "answerer"), discovery: discovery,
                            openCode: code.flatMap(HomeOpenCode.init), retainSnapshot: retainSnapshot)
        home.command = { [unowned self] in self.answerer.command($0) }
        events.onEvent = { [unowned self] event, _ in self.home.send(event) }
        home.start()
        answerer.start()
        signaller.connect()
        waitUntil("the answerer's link connected") { self.home.client.isConnected }
    }

    private func ring(_ callId: String) throws -> ScriptedCallMedia {
        signaller.receive(.incoming(callId: callId, doorName: "Vchod"))
        signaller.receive(.joinOk(callId: callId))
        signaller.receive(.offer(callId: callId, sdp: "v=0 offer"))
        let session = try XCTUnwrap(media.latest)
        session.answer()
        return session
    }

    private func send(_ word: String, code: String?) {
        let text = code.map { #"{"command":"\#(word)","code":"\#($0)"}"# } ?? word
        observer.client.publish(MQTTMessage(topic: topics.command, text: text))
    }

    private func errors() -> [String] { observer.on(topics.error).compactMap { observer.json($0)["message"] as? String } }

    /// Sends, then waits for the answer on the error topic (or for `until`).
    private func refusal(_ word: String, code: String?, file: StaticString = #filePath, line: UInt = #line) -> String? {
        let before = errors().count
        send(word, code: code)
        waitUntil("the refusal of \(word)", file: file, line: line) { self.errors().count > before }
        return errors().last
    }

    private func accepted() -> Bool { events.events.contains { $0.event.kind == .accepted } }

    private func components() throws -> [String: [String: Any]] {
        let config = try XCTUnwrap(observer.on("homeassistant/device/hall/config").last)
        return try XCTUnwrap(observer.json(config)["cmps"] as? [String: [String: Any]])
    }

    func testWrongAndMissingCodesAreRefusedAndTheRightCodeAcceptsThenOpens() throws {
        try startHome(code: "4711")
        waitUntil("discovery") { !self.observer.on("homeassistant/device/hall/config").isEmpty }
        let door = try XCTUnwrap(try components()["door"])
        XCTAssertEqual(door["p"] as? String, "lock")
        XCTAssertEqual(door["code_format"] as? String, "^\\d+$")
        XCTAssertEqual(try components()["answer"]?["p"] as? String, "lock")
        XCTAssertEqual(try components()["open"]?.count, 1, "no button opens (a button cannot ask for the code): removed, its platform alone")
        XCTAssertFalse(observer.messages.contains { String(decoding: $0.payload, as: UTF8.self).contains("4711") && $0.topic != self.topics.command },
                       "the code is never published")
        waitUntil("the lock's state") { self.observer.on(self.topics.door).last.map(self.observer.text) == "LOCKED" }

        let session = try ring("c1")
        XCTAssertTrue(refusal("accept", code: nil)?.hasPrefix("accept needs the code") ?? false, errors().description)
        XCTAssertEqual(refusal("accept", code: "0000"), "accept refused: wrong code (1 of 5 in this ring)")
        XCTAssertFalse(accepted(), "no accept without the code")
        XCTAssertEqual(refusal("open", code: "4711"), "the door opens only once you have accepted the call: accept first, then open",
                       "the right code does not skip the call's rules")
        send("accept", code: "4711")
        waitUntil("accepted with the code") { self.accepted() }
        session.connect()
        XCTAssertTrue(refusal("open", code: nil)?.hasPrefix("open needs the code") ?? false, errors().description)
        XCTAssertEqual(refusal("open", code: "1234"), "open refused: wrong code (2 of 5 in this ring)")
        XCTAssertFalse(signaller.sent.contains(.openDoor(callId: "c1")), "no open-door without the right code")
        send("open", code: "4711")
        waitUntil("the open-door sent") { self.signaller.sent.contains(.openDoor(callId: "c1")) }
        signaller.receive(.doorOpenOk(callId: "c1"))
        waitUntil("the lock shows the door open") { self.observer.on(self.topics.door).last.map(self.observer.text) == "OPEN" }
        let refused = try XCTUnwrap(observer.on(topics.error).first)
        XCTAssertEqual(observer.json(refused)["command"] as? String, "accept")
        XCTAssertEqual(observer.json(refused)["callId"] as? String, "c1")
        send("hangup", code: nil)
        waitUntil("locked again at the end") { self.observer.on(self.topics.door).last.map(self.observer.text) == "LOCKED" }
    }

    func testFiveWrongCodesRefuseTheRestOfTheRingAndTheCallGoesOn() throws {
        try startHome(code: "4711")
        _ = try ring("c1")
        for n in 1...5 { _ = refusal("open", code: "000\(n)") }
        XCTAssertEqual(errors().last, "open refused: wrong code (5 of 5 in this ring; the rest of this ring is refused)")
        XCTAssertEqual(refusal("accept", code: "4711"),
                       "accept refused: 5 wrong codes in this ring; accept and open over MQTT are refused until the next ring")
        XCTAssertFalse(accepted())
        XCTAssertEqual(answerer.currentCallId, "c1", "the ring goes on")
        XCTAssertNil(answerer.command("accept"), "the other surfaces still answer")
        XCTAssertNil(answerer.command("hangup"))
        waitUntil("the end") { self.events.events.contains { $0.event.kind == .ended } }

        _ = try ring("c2")
        send("accept", code: "4711")
        waitUntil("the next ring starts again") { self.events.events.filter { $0.event.kind == .accepted }.count == 2 }
    }

    func testWithoutACodeFileMQTTCannotAcceptNorOpenAndDiscoverySaysSo() throws {
        try startHome(code: nil)
        waitUntil("discovery and the door's state") {
            !self.observer.on("homeassistant/device/hall/config").isEmpty
                && self.observer.on(self.topics.door).last.map(self.observer.text) == "disabled"
        }
        let cmps = try components()
        let declared = cmps.filter { $0.value.count > 1 }
        XCTAssertNil(declared["accept"])
        XCTAssertNil(declared["open"])
        XCTAssertNil(declared["answer"])
        XCTAssertNil(declared["door"])
        XCTAssertEqual(declared["mqtt_open"]?["p"] as? String, "sensor")
        XCTAssertFalse(declared.values.contains { $0["command_topic"] != nil && $0["p"] as? String != "button" && $0["p"] as? String != "switch" },
                       "only reject, hang up and mute take commands")
        XCTAssertFalse(declared.values.contains { ($0["payload_press"] as? String) == "open" || ($0["payload_press"] as? String) == "accept" })

        _ = try ring("c1")
        XCTAssertEqual(refusal("accept", code: "4711"), "accept over MQTT is off: this answerer was started without --mqtt-open-code-file")
        XCTAssertEqual(refusal("accept", code: nil), "accept over MQTT is off: this answerer was started without --mqtt-open-code-file")
        XCTAssertFalse(accepted())
        XCTAssertNil(answerer.command("accept"))
        XCTAssertEqual(refusal("open", code: "4711"), "open over MQTT is off: this answerer was started without --mqtt-open-code-file")
        XCTAssertFalse(signaller.sent.contains(.openDoor(callId: "c1")))
        send("hangup", code: nil)
        waitUntil("hangup still works") { self.events.events.contains { $0.event.kind == .ended } }
    }

    func testAPayloadOverTheLimitReachesTheClientAsItsLengthAloneAndIsRefused() throws {
        try startHome(code: "4711")
        _ = try ring("c1")
        var seen: [MQTTMessage] = []
        var settings = broker.settings(clientId: "small")
        settings.largestPayload = 1024
        let small = try MQTTClient(settings: settings)
        small.subscribe(topics.command)
        small.onMessage = { seen.append($0) }
        small.start()
        waitUntil("connected") { small.isConnected }
        observer.client.publish(MQTTMessage(topic: topics.command, payload: Array(repeating: UInt8(ascii: "4"), count: 3_000_000)))
        waitUntil("the refusal") { !self.errors().isEmpty }
        XCTAssertTrue(errors()[0].contains("3000000 bytes is over the limit of 65536"), errors()[0])
        waitUntil("the small client told of it") { !seen.isEmpty }
        XCTAssertEqual(seen[0].uncopiedLength, 3_000_000)
        XCTAssertEqual(seen[0].payload, [], "not copied")
        XCTAssertEqual(home.link.gate.wrongCodes, 0, "no code compared")
        XCTAssertEqual(answerer.currentCallId, "c1")
        small.stop()
    }

    func testTheSnapshotIsSentLiveAndNotRetainedUnlessAsked() throws {
        let jpeg = temporaryDirectory() + "/c1.jpg"
        try Data([0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10, 0xFF, 0xD9]).write(to: URL(fileURLWithPath: jpeg))
        for retain in [false, true] {
            let discovery = HomeAssistantDiscovery(deviceId: "hall", deviceName: "C1nk hall", topics: topics)
            let home = try HomeMQTT(settings: broker.settings(clientId: "answerer-\(retain)"), discovery: discovery, retainSnapshot: retain)
            home.start()
            waitUntil("connected") { home.client.isConnected }
            let before = observer.on(topics.snapshot).count
            home.send(.snapshot(callId: "c1", path: jpeg))
            waitUntil("the snapshot live") { self.observer.on(self.topics.snapshot).count > before }
            XCTAssertEqual(observer.on(topics.snapshot).last?.payload.count, 8, "the JPEG's bytes")
            let late = try MQTTObserver(broker)
            // The broker sends what it retained on subscribing, before what is published after: a probe behind it is the barrier.
            late.client.publish(MQTTMessage(topic: "test/probe", text: "after"))
            waitUntil("the probe behind the retained messages") { !late.on("test/probe").isEmpty }
            XCTAssertEqual(late.on(topics.snapshot).count, retain ? 1 : 0, "retained only with --mqtt-retain-snapshot")
            home.stop()
        }
    }
}
