import C1nkCall
import C1nkHome
import Foundation
import XCTest

/// The home's view of the answerer without a broker: discovery, events to
/// publications, and every kind of command payload.
final class HomeLinkTests: XCTestCase {
    private let discovery = HomeAssistantDiscovery(deviceId: "app-7f3a", deviceName: "C1nk hall",
                                                   topics: HomeTopics(prefix: "c1nk/app-7f3a/"))
    private var link: HomeLink!

    override func setUp() { link = HomeLink(discovery: discovery) }

    private func json(_ text: String) throws -> [String: Any] {
        try XCTUnwrap(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    func testDiscoveryDeclaresTheDoorbellTheStateTheButtonsTheSwitchTheSnapshotAndTheLinkAndWithoutACodeNoWayToOpen() throws {
        let publication = discovery.publication
        XCTAssertEqual(publication.topic, "homeassistant/device/app-7f3a/config")
        XCTAssertTrue(publication.retain)
        let document = try json(publication.payload)
        XCTAssertEqual(document["availability_topic"] as? String, "c1nk/app-7f3a/availability")
        let device = try XCTUnwrap(document["dev"] as? [String: Any])
        XCTAssertEqual(device["name"] as? String, "C1nk hall")
        XCTAssertEqual(device["ids"] as? [String], ["app-7f3a"])
        let components = try XCTUnwrap(document["cmps"] as? [String: [String: Any]])
        let declared = components.filter { $0.value.count > 1 }
        XCTAssertEqual(Set(declared.keys), ["doorbell", "call", "reject", "hangup", "mute", "snapshot", "server", "mqtt_open"],
                       "no code: nothing accepts or opens")
        for (key, platform) in [("accept", "button"), ("open", "button"), ("door", "lock"), ("answer", "lock")] {
            XCTAssertEqual(components[key]?.count, 1, "\(key) is removed: the platform alone")
            XCTAssertEqual(components[key]?["p"] as? String, platform, key)
        }
        XCTAssertEqual(components["mqtt_open"]?["p"] as? String, "sensor", "a sensor says opening over MQTT is off")
        XCTAssertEqual(components["mqtt_open"]?["state_topic"] as? String, "c1nk/app-7f3a/door")
        XCTAssertNil(components["mqtt_open"]?["command_topic"])
        XCTAssertTrue(link.states().contains(HomePublication("c1nk/app-7f3a/door", "disabled", retain: true)))
        let doorbell = try XCTUnwrap(components["doorbell"])
        XCTAssertEqual(doorbell["p"] as? String, "event")
        XCTAssertEqual(doorbell["device_class"] as? String, "doorbell")
        XCTAssertEqual(doorbell["event_types"] as? [String], ["ring", "answered", "missed", "answered_elsewhere", "door_opened", "sip_ringing", "sip_answered"])
        XCTAssertEqual(doorbell["state_topic"] as? String, "c1nk/app-7f3a/event")
        XCTAssertEqual(components["call"]?["p"] as? String, "sensor")
        XCTAssertEqual(components["call"]?["options"] as? [String], ["idle", "ringing", "in_call"])
        for (key, word) in [("reject", "reject"), ("hangup", "hangup")] {
            XCTAssertEqual(components[key]?["p"] as? String, "button", key)
            XCTAssertEqual(components[key]?["payload_press"] as? String, word, key)
            XCTAssertEqual(components[key]?["command_topic"] as? String, "c1nk/app-7f3a/command", key)
            XCTAssertEqual(components[key]?["retain"] as? Bool, false, key)
        }
        XCTAssertEqual(components["mute"]?["p"] as? String, "switch")
        XCTAssertEqual(components["mute"]?["retain"] as? Bool, false)
        XCTAssertEqual(components["snapshot"]?["p"] as? String, "image")
        XCTAssertEqual(components["snapshot"]?["image_topic"] as? String, "c1nk/app-7f3a/snapshot")
        XCTAssertEqual(components["snapshot"]?["content_type"] as? String, "image/jpeg")
        XCTAssertEqual(components["server"]?["device_class"] as? String, "connectivity")
        let ids = components.values.compactMap { $0["unique_id"] as? String }
        XCTAssertEqual(Set(ids).count, declared.count, "unique ids are unique")
        XCTAssertEqual(publication, discovery.publication, "the same text every time")
    }

    func testNodeIdKeepsOnlyWhatATopicLevelTakes() {
        let odd = HomeAssistantDiscovery(deviceId: "a/b+c#d é", deviceName: "x", topics: HomeTopics(prefix: "p"))
        XCTAssertEqual(odd.nodeId, "a_b_c_d__")
        XCTAssertEqual(HomeAssistantDiscovery.deviceName(hostname: "pi4"), "C1nk pi4")
        XCTAssertNotNil(HomeTopics.check(prefix: ""))
        XCTAssertNotNil(HomeTopics.check(prefix: "c1nk/#"))
        XCTAssertNil(HomeTopics.check(prefix: "c1nk/door"))
    }

    func testConnectingPublishesAvailabilityDiscoveryAndStatesRetained() {
        let out = link.connected()
        XCTAssertEqual(out.first, HomePublication("c1nk/app-7f3a/availability", "online", retain: true))
        XCTAssertTrue(out.contains(discovery.publication))
        XCTAssertTrue(out.allSatisfy(\.retain))
        XCTAssertEqual(link.will, HomePublication("c1nk/app-7f3a/availability", "offline", retain: true))
    }

    func testARingAnAcceptAnOpenAndTheEndOfACall() throws {
        let ring = link.handle(.ringing(callId: "c1", doorName: "Front"))
        let event = try json(ring[0].payload)
        XCTAssertEqual(ring[0].topic, "c1nk/app-7f3a/event")
        XCTAssertFalse(ring[0].retain)
        XCTAssertEqual(event["event_type"] as? String, "ring")
        XCTAssertEqual(event["door"] as? String, "Front")
        XCTAssertEqual(event["callId"] as? String, "c1")
        XCTAssertEqual(try json(ring[1].payload)["state"] as? String, "ringing")
        XCTAssertEqual(try json(ring[1].payload)["door"] as? String, "Front")
        XCTAssertTrue(ring[1].retain)

        XCTAssertEqual(link.handle(.snapshot(callId: "c1", path: "/srv/door/c1.jpg")), [], "the bytes go out from the client")
        XCTAssertEqual(link.handle(.snapshot(callId: "old", path: "/srv/door/old.jpg")), [])
        let accept = link.handle(.accepted(callId: "c1"))
        XCTAssertEqual(try json(accept[0].payload)["event_type"] as? String, "answered")
        XCTAssertEqual(try json(accept[0].payload)["snapshot"] as? String, "/srv/door/c1.jpg", "the call's later events carry its snapshot")
        XCTAssertEqual(try json(accept[1].payload)["state"] as? String, "in_call")
        XCTAssertEqual(link.obeyed(.mute), [HomePublication("c1nk/app-7f3a/mute", "ON", retain: true)])
        XCTAssertEqual(link.handle(.levels(callId: "c1", door: -30, resident: -100, muted: true)), [], "already shown")

        let opened = link.handle(.doorOpened(callId: "c1"))
        XCTAssertEqual(try json(opened[0].payload)["event_type"] as? String, "door_opened")
        XCTAssertEqual(try json(opened[0].payload)["door"] as? String, "Front")

        let end = link.handle(.ended(callId: "c1", reason: .hangup, doorName: "Front"))
        XCTAssertEqual(end.map(\.topic), ["c1nk/app-7f3a/call", "c1nk/app-7f3a/mute", "c1nk/app-7f3a/door"],
                       "an answered call ends with no doorbell event")
        XCTAssertEqual(try json(end[0].payload)["state"] as? String, "idle")
        XCTAssertEqual(end[1].payload, "OFF")
    }

    func testUnansweredRingsAreMissedAndAnswerElsewhereIsSaid() throws {
        _ = link.handle(.ringing(callId: "c1", doorName: "Front"))
        let gone = link.handle(.ended(callId: "c1", reason: .remote, doorName: "Front"))
        XCTAssertEqual(try json(gone[0].payload)["event_type"] as? String, "missed")

        _ = link.handle(.ringing(callId: "c2", doorName: "Front"))
        let elsewhere = link.handle(.ended(callId: "c2", reason: .answeredElsewhere, doorName: "Front"))
        XCTAssertEqual(try json(elsewhere[0].payload)["event_type"] as? String, "answered_elsewhere")

        _ = link.handle(.ringing(callId: "c3", doorName: "Front"))
        XCTAssertEqual(link.handle(.ended(callId: "c3", reason: .rejected, doorName: "Front")).map(\.topic),
                       ["c1nk/app-7f3a/call", "c1nk/app-7f3a/mute"], "a rejected ring was not missed")

        let busy = link.handle(.missed(callId: "c4", doorName: "Back", reason: "busy"))
        XCTAssertEqual(try json(busy[0].payload)["event_type"] as? String, "missed")
        XCTAssertEqual(try json(busy[0].payload)["reason"] as? String, "busy")
    }

    func testTheServerLinkAndErrors() throws {
        XCTAssertEqual(link.handle(.registered(deviceId: "x")), [HomePublication("c1nk/app-7f3a/server", "ON", retain: true)])
        XCTAssertEqual(link.handle(.registered(deviceId: "x")), [])
        XCTAssertEqual(link.handle(.disconnected(reason: "gone")), [HomePublication("c1nk/app-7f3a/server", "OFF", retain: true)])
        XCTAssertEqual(link.handle(.connectFailed(reason: "gone", retryIn: 1)), [])
        let error = link.handle(.error(callId: nil, message: "the recording stopped"))
        XCTAssertEqual(error[0].topic, "c1nk/app-7f3a/error")
        XCTAssertFalse(error[0].retain)
        XCTAssertEqual(try json(error[0].payload)["message"] as? String, "the recording stopped")
        XCTAssertEqual(link.handle(.mediaConnected(callId: "c1")), [])
    }

    func testCommandsAsWordsAndAsJSON() {
        let topic = "c1nk/app-7f3a/command"
        _ = link.handle(.ringing(callId: "c1", doorName: "Front"))
        for command in HomeCommand.allCases where !command.needsCode {
            XCTAssertEqual(link.message(topic: topic, payload: Array(command.rawValue.utf8), retained: false), .command(command))
            XCTAssertEqual(link.message(topic: topic, payload: Array("{\"command\":\"\(command.rawValue)\"}".utf8), retained: false),
                           .command(command))
        }
        XCTAssertEqual(link.message(topic: topic, payload: Array(" Hangup\n".utf8), retained: false), .command(.hangup))
        XCTAssertEqual(HomeCommand.request(Array(#"{"command":"open","code":"12"}"#.utf8)), .success(HomeCommand.Request(.open, code: Array("12".utf8))))
        XCTAssertEqual(HomeCommand.request(Array(#"{"command":"open","code":null}"#.utf8)), .success(HomeCommand.Request(.open)))
        XCTAssertEqual(HomeCommand.request(Array(#"{"command":"open","code":12}"#.utf8)), .failure(.badCode))
        XCTAssertEqual(HomeCommand.request(Array(#"{"command":"lock","code":"12"}"#.utf8)), .failure(.lock))
    }

    func testRetainedCommandsAndOtherTopicsAreIgnored() {
        XCTAssertEqual(link.message(topic: "c1nk/app-7f3a/command", payload: Array("open".utf8), retained: true), .ignore)
        XCTAssertEqual(link.message(topic: "c1nk/other/command", payload: Array("open".utf8), retained: false), .ignore)
        XCTAssertEqual(link.message(topic: "homeassistant/status", payload: Array("offline".utf8), retained: false), .ignore)
        guard case .publish(let again) = link.message(topic: "homeassistant/status", payload: Array("online".utf8), retained: false)
        else { return XCTFail("Home Assistant's birth publishes discovery again") }
        XCTAssertTrue(again.contains(discovery.publication))
    }

    func testBadCommandPayloadsAreRefusedWithTheReason() throws {
        let topic = "c1nk/app-7f3a/command"
        func refusal(_ payload: [UInt8]) throws -> String {
            guard case .refused(let p) = link.message(topic: topic, payload: payload, retained: false) else {
                XCTFail("refused: \(payload.prefix(20))"); return ""
            }
            XCTAssertEqual(p.topic, "c1nk/app-7f3a/error")
            XCTAssertFalse(p.retain)
            return try XCTUnwrap(json(p.payload)["message"] as? String)
        }
        XCTAssertTrue(try refusal(Array(repeating: UInt8(ascii: "a"), count: 1_000_000)).contains("over the limit of 65536"))
        XCTAssertTrue(try refusal([0x6f, 0xff, 0xfe]).contains("not UTF-8"))
        XCTAssertTrue(try refusal(Array("dance".utf8)).contains("unknown command 'dance'; use one of accept, reject"))
        XCTAssertTrue(try refusal(Array("{\"command\":7}".utf8)).contains("{\"command\":\"open\"}"))
        XCTAssertTrue(try refusal(Array("{not json".utf8)).contains("not JSON"))
        XCTAssertTrue(try refusal([]).contains("empty"))
        XCTAssertTrue(try refusal(Array("o".utf8)).contains("unknown command 'o'"), "no single letters from the home")
        XCTAssertEqual(HomeCommand.parse(Array(repeating: UInt8(ascii: " "), count: 65536) + Array("open".utf8)),
                       .failure(.tooLarge(65540)))
    }

    /// Random payloads, some shaped like commands: each is a command or a refusal, never a trap.
    func testRandomPayloadsAreACommandOrARefusal() {
        var generator = SystemRandomNumberGenerator()
        let pieces: [[UInt8]] = [Array("{\"command\":".utf8), Array("\"open\"".utf8), Array("}".utf8), Array("accept".utf8),
                                 [0xff], [0xc3, 0xa9], [0x00], Array(" \n".utf8), Array("[".utf8)]
        for _ in 0..<5000 {
            var payload: [UInt8] = []
            for _ in 0..<Int.random(in: 0...6, using: &generator) {
                payload += Bool.random(using: &generator) ? pieces.randomElement(using: &generator)!
                    : [UInt8.random(in: 0...255, using: &generator)]
            }
            switch link.message(topic: "c1nk/app-7f3a/command", payload: payload, retained: false) {
            case .command(let command): XCTAssertTrue(HomeCommand.allCases.contains(command))
            case .refused(let p): XCTAssertEqual(p.topic, "c1nk/app-7f3a/error")
            default: XCTFail("a live command payload is a command or a refusal: \(payload)")
            }
        }
    }

    func testARefusalNamesTheCommandAndTheCall() throws {
        _ = link.handle(.ringing(callId: "c9", doorName: "Front"))
        let refusal = try json(link.refusal("accept first", command: .open).payload)
        XCTAssertEqual(refusal["command"] as? String, "open")
        XCTAssertEqual(refusal["callId"] as? String, "c9")
        XCTAssertEqual(refusal["message"] as? String, "accept first")
    }
}
