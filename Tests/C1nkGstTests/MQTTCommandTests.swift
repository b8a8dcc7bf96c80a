import Foundation
import Glibc
import XCTest
@testable import C1nkDoor
@testable import C1nkGLib
@testable import C1nkLocal
@testable import C1nkMQTT

/// `c1nk-gst-answer --mqtt` as a user runs it, on a real mosquitto: a real
/// call from the simulated door answered and opened from MQTT with the open
/// code, and the last will when the process dies; the options' usage errors.
final class MQTTCommandTests: XCTestCase {
    private let prefix = "c1nk/hall"

    func testACallAnsweredAndOpenedFromMQTTAndTheLastWillWhenTheProcessDies() throws {
        Log.echoToStandardError = false
        defer { Log.echoToStandardError = true }
        let broker = try MQTTBroker()
        defer { broker.stop() }
        let observer = try MQTTObserver(broker)
        var doorEvents: [SimulatedDoor.Event] = []
        let (server, door) = try AnswerCommandTests.serverAndDoor(configure: { $0.media.doorName = "Vchod B" }) {
            doorEvents.append($0)
        }
        defer { door.stop(); server.stop() }
        let directory = temporaryDirectory()
        let passwordFile = directory + "/mqtt-password"
        try (MQTTBroker.password + "\n").write(toFile: passwordFile, atomically: true, encoding: .utf8)
        chmod(passwordFile, 0o600)
        let codeFile = directory + "/open-code"
        try "4711\n".write(toFile: codeFile, atomically: true, encoding: .utf8)
        chmod(codeFile, 0o600)
        let command = try AnswerCommandTests.Command("c1nk-gst-answer", [
            "--server", server.url, "--device-id-file", directory + "/id", "--answer", "manual", "--mqtt-open-code-file", codeFile,
            "--stun", "none", "--ice-local-ip", "127.0.0.1", "--sink", "fakesink", "--audio-sink", "fakesink",
            "--audio-source", "audiotestsrc is-live=true", "--ringtone", "none",
            "--mqtt", "mqtt://127.0.0.1:\(broker.port)", "--mqtt-user", MQTTBroker.user,
            "--mqtt-password-file", passwordFile, "--mqtt-topic", prefix])
        defer { if command.process.isRunning { command.signal(SIGKILL); _ = command.wait() } }

        func last(_ topic: String) -> String? { observer.on(prefix + "/" + topic).last.map(observer.text) }
        func doorbell(_ type: String) -> [String: Any]? {
            observer.on(prefix + "/event").map(observer.json).last { $0["event_type"] as? String == type }
        }
        waitUntil("online, discovered and registered") {
            last("availability") == "online" && last("server") == "ON" && door.isReady
        }
        let config = try XCTUnwrap(observer.messages.last { $0.topic.hasPrefix("homeassistant/device/") })
        let device = try XCTUnwrap(observer.json(config)["dev"] as? [String: Any])
        XCTAssertEqual(device["name"] as? String, "C1nk " + MQTTCommandOptionsHostname.name)
        XCTAssertTrue(command.stderr.contains("MQTT: connected to mqtt://127.0.0.1:\(broker.port)"), command.stderr)

        door.ring()
        waitUntil("the ring on the broker") { doorbell("ring") != nil }
        XCTAssertEqual(doorbell("ring")?["door"] as? String, "Vchod B")

        func errors() -> [String] { observer.on(prefix + "/error").compactMap { observer.json($0)["message"] as? String } }
        observer.client.publish(MQTTMessage(topic: prefix + "/command", text: #"{"command":"open","code":"4711"}"#))
        waitUntil("open refused before accept") { errors().contains { $0.contains("accept first") } }
        observer.client.publish(MQTTMessage(topic: prefix + "/command", text: "accept"))
        waitUntil("accept refused without the code") { errors().contains { $0.hasPrefix("accept needs the code") } }
        observer.client.publish(MQTTMessage(topic: prefix + "/command", text: #"{"command":"accept","code":"4712"}"#))
        waitUntil("accept refused with a wrong code") { errors().contains("accept refused: wrong code (1 of 5 in this ring)") }
        waitUntil("the wrong code logged") { command.stderr.contains("a wrong open code on \(self.prefix)/command (1 of 5 in this ring)") }
        XCTAssertNil(doorbell("answered"))
        observer.client.publish(MQTTMessage(topic: prefix + "/command", text: #"{"command":"accept","code":"4711"}"#))
        waitUntil("answered") { doorbell("answered") != nil }
        observer.client.publish(MQTTMessage(topic: prefix + "/command", text: #"{"command":"open","code":"4711"}"#))
        waitUntil("the door opened") { doorbell("door_opened") != nil }
        waitUntil("the door heard it") { doorEvents.contains(.doorOpened) }

        // Killed, it cannot say goodbye: the broker publishes the last will.
        command.signal(SIGKILL)
        _ = command.wait()
        waitUntil("the last will") { last("availability") == "offline" }
    }

    func testABrokerDownAtStartUpIsAnErrorEventThenJoinedAndSIGTERMSaysOffline() throws {
        Log.echoToStandardError = false
        defer { Log.echoToStandardError = true }
        let broker = try MQTTBroker()
        defer { broker.stop() }
        broker.stop()
        let directory = temporaryDirectory()
        let passwordFile = directory + "/mqtt-password"
        try (MQTTBroker.password + "\n").write(toFile: passwordFile, atomically: true, encoding: .utf8)
        chmod(passwordFile, 0o600)
        let events = directory + "/events.jsonl"
        let command = try AnswerCommandTests.Command("c1nk-gst-answer", [
            "--server", "ws://127.0.0.1:9/ws", "--device-id-file", directory + "/id", "--events", events,
            "--mqtt", "mqtt://127.0.0.1:\(broker.port)", "--mqtt-user", MQTTBroker.user,
            "--mqtt-password-file", passwordFile, "--mqtt-topic", prefix])
        defer { if command.process.isRunning { command.signal(SIGKILL); _ = command.wait() } }
        waitUntil("the error event") {
            AnswerCommandTests.events(in: events).contains {
                ($0["event"] as? String) == "error" && (($0["message"] as? String)?.contains("MQTT broker mqtt://127.0.0.1:\(broker.port)") ?? false)
            }
        }
        XCTAssertTrue(command.stderr.contains("retrying in 1 s (calls go on)"), command.stderr)

        try broker.start()
        let observer = try MQTTObserver(broker)
        waitUntil("joined once the broker is up") {
            observer.on(self.prefix + "/availability").last.map(observer.text) == "online"
                && observer.on(self.prefix + "/server").last.map(observer.text) == "OFF" // the C1nk server is unreachable
        }
        command.signal(SIGTERM)
        XCTAssertEqual(command.wait(), 0, command.stderr)
        waitUntil("offline on a clean stop") { observer.on(self.prefix + "/availability").last.map(observer.text) == "offline" }
    }

    func testDoctorChecksTheBrokerAndItsLogin() throws {
        let broker = try MQTTBroker()
        defer { broker.stop() }
        let directory = temporaryDirectory()
        func doctor(password: String) throws -> String {
            let passwordFile = directory + "/mqtt-password"
            try (password + "\n").write(toFile: passwordFile, atomically: true, encoding: .utf8)
            chmod(passwordFile, 0o600)
            let command = try AnswerCommandTests.Command("c1nk-gst-answer", [
                "doctor", "--server", "ws://127.0.0.1:1/ws", "--device-id-file", directory + "/id",
                "--sink", "fakesink", "--audio-sink", "fakesink", "--audio-source", "audiotestsrc", "--stun", "none",
                "--mqtt", "mqtt://127.0.0.1:\(broker.port)", "--mqtt-user", MQTTBroker.user, "--mqtt-password-file", passwordFile])
            XCTAssertNotNil(command.wait(timeout: 30))
            return command.stdout
        }
        let good = try doctor(password: MQTTBroker.password)
        XCTAssertTrue(good.contains("✔ MQTT broker mqtt://127.0.0.1:\(broker.port) is reachable and accepts the login; MQTT cannot accept a call nor open the door (no --mqtt-open-code-file)"), good)
        let bad = try doctor(password: "wrong")
        XCTAssertTrue(bad.contains("✘ MQTT broker mqtt://127.0.0.1:\(broker.port): the broker refused the connection"), bad)
        XCTAssertTrue(bad.contains("(advisory: a call can still work)"), bad)
    }

    func testMQTTOptionsThatDoNotGoTogetherAreUsageErrors() throws {
        for (arguments, message) in [
            (["--mqtt-user", "c1nk"], "--mqtt-user, --mqtt-password-file, --mqtt-topic, --mqtt-trust-ca, --mqtt-open-code-file and --mqtt-retain-snapshot need --mqtt URL too"),
            (["--mqtt-retain-snapshot"], "need --mqtt URL too"),
            (["--mqtt", "mqtt://127.0.0.1:1", "--mqtt-trust-ca", "/etc/hostname"], "--mqtt-trust-ca is for mqtts://"),
            (["--mqtt", "mqtt://127.0.0.1:1", "--mqtt-topic", "c1nk/#"], "holds a wildcard"),
            (["--mqtt", "mqtt://127.0.0.1:1", "--mqtt-topic", "c1nk/+/x"], "holds a wildcard"),
            (["--mqtt", "mqtt://127.0.0.1:1", "--mqtt-topic", "c1nk/\u{1b}x"], "control character"),
            (["--mqtt", "mqtt://127.0.0.1:1", "--mqtt-topic", "$SYS/x"], "starts with $"),
            (["--mqtt", "mqtt://127.0.0.1:1", "--mqtt-topic", String(repeating: "d", count: 300)], "300 bytes, over the limit of 200"),
            (["--mqtt", "mqtt://127.0.0.1:1", "--mqtt-open-code-file", "/nonexistent/code"], "cannot read the MQTT open code file /nonexistent/code"),
        ] {
            let command = try AnswerCommandTests.Command("c1nk-gst-answer", ["--server", "ws://127.0.0.1:9/ws"] + arguments)
            XCTAssertEqual(command.wait(), 2, arguments.joined(separator: " "))
            XCTAssertTrue(command.stderr.contains(message), command.stderr)
        }
    }

    func testAPasswordFileOthersCanReadIsRefusedByTheCommand() throws {
        let directory = temporaryDirectory()
        let passwordFile = directory + "/mqtt-password"
        try "secret\n".write(toFile: passwordFile, atomically: true, encoding: .utf8)
        chmod(passwordFile, 0o640)
        let command = try AnswerCommandTests.Command("c1nk-gst-answer", [
            "--mqtt", "mqtt://127.0.0.1:1883", "--mqtt-user", "c1nk", "--mqtt-password-file", passwordFile])
        XCTAssertEqual(command.wait(), 2)
        XCTAssertTrue(command.stderr.contains("the MQTT password file \(passwordFile) can be read by others (mode 640); make it owner-only: chmod 600 \(passwordFile)"),
                      command.stderr)
    }

    func testAnOpenCodeFileOthersCanReadOrAnEmptyOneIsRefusedByTheCommand() throws {
        let directory = temporaryDirectory()
        let codeFile = directory + "/open-code"
        try "4711\n".write(toFile: codeFile, atomically: true, encoding: .utf8)
        chmod(codeFile, 0o644)
        let open = try AnswerCommandTests.Command("c1nk-gst-answer", ["--mqtt", "mqtt://127.0.0.1:1883", "--mqtt-open-code-file", codeFile])
        XCTAssertEqual(open.wait(), 2)
        XCTAssertTrue(open.stderr.contains("the MQTT open code file \(codeFile) can be read by others (mode 644); make it owner-only: chmod 600 \(codeFile)"),
                      open.stderr)
        try "\n".write(toFile: codeFile, atomically: true, encoding: .utf8)
        chmod(codeFile, 0o600)
        let empty = try AnswerCommandTests.Command("c1nk-gst-answer", ["--mqtt", "mqtt://127.0.0.1:1883", "--mqtt-open-code-file", codeFile])
        XCTAssertEqual(empty.wait(), 2)
        XCTAssertTrue(empty.stderr.contains("the MQTT open code file \(codeFile) is empty"), empty.stderr)
        XCTAssertFalse(empty.stderr.contains("4711"))
    }
}

/// This machine's name, as the command reads it for the device name.
enum MQTTCommandOptionsHostname {
    static var name: String {
        var buffer = [CChar](repeating: 0, count: 256)
        _ = gethostname(&buffer, 255)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
