import C1nkCall
import C1nkHome
import Foundation
import XCTest

/// Accept and open from the home need the code: the locks discovery
/// declares, the gate's every refusal, the limit on wrong codes, and the
/// topic prefixes that could widen a subscription.
final class HomeCodeGateTests: XCTestCase {
    private let topics = HomeTopics(prefix: "c1nk/hall")
    private var link: HomeLink!

    override func setUp() {
        let discovery = HomeAssistantDiscovery(deviceId: "hall", deviceName: "C1nk hall", topics: topics)
        link = HomeLink(discovery: discovery, openCode: HomeOpenCode("4711"))
    }

    private func send(_ payload: String) -> HomeLink.Incoming {
        link.message(topic: topics.command, payload: Array(payload.utf8), retained: false)
    }

    private func command(_ word: String, code: String?) -> String {
        guard let code else { return #"{"command":"\#(word)"}"# }
        return #"{"command":"\#(word)","code":"\#(code)"}"#
    }

    private func reason(_ incoming: HomeLink.Incoming) -> String? {
        switch incoming {
        case .refused(let p), .wrongCode(let p, _):
            return (try? JSONSerialization.jsonObject(with: Data(p.payload.utf8)) as? [String: Any])?["message"] as? String
        default: return nil
        }
    }

    func testDiscoveryDeclaresTwoLocksThatAskForTheCodeAndNoButtonThatAcceptsOrOpens() throws {
        let document = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(link.discovery.publication.payload.utf8)) as? [String: Any])
        let components = try XCTUnwrap(document["cmps"] as? [String: [String: Any]])
        XCTAssertEqual(components["accept"]?.count, 1, "the accept button of earlier versions is removed")
        XCTAssertEqual(components["open"]?.count, 1, "and the open button")
        XCTAssertEqual(components["mqtt_open"]?.count, 1, "and the sensor that says opening is off")
        let door = try XCTUnwrap(components["door"])
        XCTAssertEqual(door["p"] as? String, "lock")
        XCTAssertEqual(door["code_format"] as? String, "^\\d+$", "a numeric code: Home Assistant shows a keypad")
        XCTAssertEqual(door["command_topic"] as? String, "c1nk/hall/command")
        XCTAssertEqual(door["command_template"] as? String, #"{"command":"{{ value }}","code":{{ code | tojson }}}"#)
        XCTAssertEqual(door["payload_open"] as? String, "open")
        XCTAssertEqual(door["payload_unlock"] as? String, "open")
        XCTAssertEqual(door["state_topic"] as? String, "c1nk/hall/door")
        XCTAssertEqual(door["retain"] as? Bool, false)
        let answer = try XCTUnwrap(components["answer"])
        XCTAssertEqual(answer["p"] as? String, "lock")
        XCTAssertEqual(answer["payload_unlock"] as? String, "accept")
        XCTAssertEqual(answer["payload_lock"] as? String, "hangup")
        XCTAssertEqual(answer["code_format"] as? String, "^\\d+$")
        XCTAssertFalse(link.discovery.publication.payload.contains("4711"), "the code is never published")
        XCTAssertEqual(HomeOpenCode("open sesame")?.format, "^.+$")
        XCTAssertTrue(link.states().contains(HomePublication("c1nk/hall/door", "LOCKED", retain: true)))
    }

    /// What Home Assistant's lock sends: its command template, rendered.
    func testTheLocksRenderedTemplateIsTheCommandWithItsCode() {
        _ = link.handle(.ringing(callId: "c1", doorName: "Front"))
        let rendered = HomeAssistantDiscovery.commandTemplate.replacingOccurrences(of: "{{ value }}", with: "accept")
            .replacingOccurrences(of: "{{ code | tojson }}", with: "\"4711\"")
        XCTAssertEqual(send(rendered), .command(.accept))
    }

    func testAcceptAndOpenNeedTheRightCodeDuringACallAndTheOtherCommandsDoNot() {
        XCTAssertEqual(reason(send(command("open", code: "4711"))), "no call in progress", "idle: not even compared")
        XCTAssertEqual(link.gate.wrongCodes, 0)
        _ = link.handle(.ringing(callId: "c1", doorName: "Front"))
        XCTAssertEqual(reason(send("accept")), #"accept needs the code: send {"command":"accept","code":"…"} (Home Assistant's lock asks for it)"#)
        XCTAssertEqual(reason(send(command("accept", code: nil))), reason(send("accept")))
        XCTAssertEqual(reason(send(command("accept", code: "0000"))), "accept refused: wrong code (1 of 5 in this ring)")
        XCTAssertEqual(reason(send(command("accept", code: "47111"))), "accept refused: wrong code (2 of 5 in this ring)")
        XCTAssertEqual(reason(send(command("accept", code: "471"))), "accept refused: wrong code (3 of 5 in this ring)")
        XCTAssertEqual(reason(send(command("accept", code: String(repeating: "4", count: 70_000)))),
                       "command refused: 70030 bytes is over the limit of 65536; send one word such as open")
        XCTAssertEqual(link.gate.wrongCodes, 3, "a payload over the limit is refused before any code is compared")
        XCTAssertEqual(send(command("accept", code: "4711")), .command(.accept))
        _ = link.handle(.accepted(callId: "c1"))
        XCTAssertEqual(send(command("open", code: "4711")), .command(.open))
        for word in ["reject", "hangup", "mute", "unmute"] {
            XCTAssertEqual(send(word), .command(HomeCommand(rawValue: word)!), word)
        }
    }

    func testFiveWrongCodesRefuseTheRestOfTheRingAndTheNextRingStartsAgain() {
        _ = link.handle(.ringing(callId: "c1", doorName: "Front"))
        for n in 1...5 {
            guard case .wrongCode(_, let count) = send(command("open", code: "\(n)")) else { return XCTFail("wrong code \(n)") }
            XCTAssertEqual(count, n)
        }
        XCTAssertEqual(reason(send(command("accept", code: "4711"))),
                       "accept refused: 5 wrong codes in this ring; accept and open over MQTT are refused until the next ring")
        XCTAssertEqual(link.gate.wrongCodes, 5, "refusals after the limit compare nothing")
        _ = link.handle(.ended(callId: "c1", reason: .remote, doorName: "Front"))
        _ = link.handle(.ringing(callId: "c2", doorName: "Front"))
        XCTAssertEqual(send(command("accept", code: "4711")), .command(.accept))
    }

    func testWithoutACodeAcceptAndOpenAreOff() {
        let plain = HomeLink(discovery: HomeAssistantDiscovery(deviceId: "hall", deviceName: "C1nk hall", topics: topics))
        var link = plain
        _ = link.handle(.ringing(callId: "c1", doorName: "Front"))
        for word in ["accept", "open"] {
            guard case .refused(let p) = link.message(topic: topics.command, payload: Array(command(word, code: "4711").utf8), retained: false)
            else { return XCTFail(word) }
            XCTAssertTrue(p.payload.contains("\(word) over MQTT is off: this answerer was started without --mqtt-open-code-file"), p.payload)
        }
        XCTAssertEqual(link.message(topic: topics.command, payload: Array("reject".utf8), retained: false), .command(.reject))
    }

    func testTheCodeIsComparedWhole() throws {
        let code = try XCTUnwrap(HomeOpenCode("4711"))
        XCTAssertTrue(code.matches(Array("4711".utf8)))
        for wrong in ["", "4", "471", "47110", "4712", "5711", String(repeating: "4711", count: 100)] {
            XCTAssertFalse(code.matches(Array(wrong.utf8)), wrong)
        }
        XCTAssertNil(HomeOpenCode(""))
        XCTAssertNil(HomeOpenCode("12\n34"))
        XCTAssertNil(HomeOpenCode(String(repeating: "1", count: 65)))
        XCTAssertEqual("\(code)", "HomeOpenCode(…)", "never shown")
    }

    func testAPayloadTheClientDidNotCopyIsRefusedByItsLength() throws {
        guard case .refused(let p) = link.oversized(topic: topics.command, length: 2_000_000, retained: false) else { return XCTFail() }
        XCTAssertTrue(p.payload.contains("2000000 bytes is over the limit of 65536"), p.payload)
        XCTAssertEqual(link.oversized(topic: "homeassistant/status", length: 2_000_000, retained: false), .ignore)
    }

    func testPrefixesThatCouldWidenASubscriptionOrAreTooLongAreRefused() {
        for (prefix, words) in [("c1nk/+", "wildcard"), ("#", "wildcard"), ("c1nk/a\u{0}b", "NUL"), ("c1nk/\u{7}", "control"),
                                ("$SYS/c1nk", "starts with $"), ("", "empty"), ("///", "empty"),
                                (String(repeating: "a", count: 201), "201 bytes, over the limit of 200")] {
            let problem = HomeTopics.check(prefix: prefix)
            XCTAssertTrue(problem?.contains(words) ?? false, "\(prefix.prefix(20)): \(problem ?? "accepted")")
        }
        XCTAssertNil(HomeTopics.check(prefix: String(repeating: "a", count: 200)))
        XCTAssertNil(HomeTopics.check(prefix: "c1nk/hall/dvere-é"))
        // A device id from a file or the server never widens the subscription.
        XCTAssertEqual(HomeTopics.defaultPrefix(deviceId: "app-7f3a").prefix, "c1nk/app-7f3a")
        XCTAssertFalse(HomeTopics.defaultPrefix(deviceId: "app-7f3a").changed)
        XCTAssertEqual(HomeTopics.defaultPrefix(deviceId: "+").prefix, "c1nk/_")
        XCTAssertEqual(HomeTopics.defaultPrefix(deviceId: "#").prefix, "c1nk/_")
        XCTAssertEqual(HomeTopics.defaultPrefix(deviceId: "a/+/b\u{0}").prefix, "c1nk/a___b_")
        XCTAssertTrue(HomeTopics.defaultPrefix(deviceId: "+").changed)
        XCTAssertEqual(HomeTopics.defaultPrefix(deviceId: "").prefix, "c1nk/_")
        XCTAssertEqual(HomeTopics.defaultPrefix(deviceId: String(repeating: "x", count: 500)).prefix.utf8.count, 200)
        for id in ["+", "#", "a/+/b", "", String(repeating: "x", count: 500)] {
            XCTAssertNil(HomeTopics.check(prefix: HomeTopics.defaultPrefix(deviceId: id).prefix), id)
        }
    }
}
