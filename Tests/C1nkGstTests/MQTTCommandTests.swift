import Foundation
import Glibc
import XCTest
@testable import C1nkDoor
@testable import C1nkGLib
@testable import C1nkLocal
@testable import C1nkMQTT

/// `c1nk-gst-answer --mqtt` as a user runs it, on a real mosquitto: a real
/// call from the simulated door answered and opened from MQTT, and the last
/// will when the process dies.
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
        let command = try AnswerCommandTests.Command("c1nk-gst-answer", [
            "--server", server.url, "--device-id-file", directory + "/id", "--answer", "manual",
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

        observer.client.publish(MQTTMessage(topic: prefix + "/command", text: "open"))
        waitUntil("open refused before accept") { !observer.on(self.prefix + "/error").isEmpty }
        observer.client.publish(MQTTMessage(topic: prefix + "/command", text: "accept"))
        waitUntil("answered") { doorbell("answered") != nil }
        observer.client.publish(MQTTMessage(topic: prefix + "/command", text: "{\"command\":\"open\"}"))
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
        XCTAssertTrue(good.contains("✔ MQTT broker mqtt://127.0.0.1:\(broker.port) is reachable and accepts the login"), good)
        let bad = try doctor(password: "wrong")
        XCTAssertTrue(bad.contains("✘ MQTT broker mqtt://127.0.0.1:\(broker.port): the broker refused the connection"), bad)
        XCTAssertTrue(bad.contains("(advisory: a call can still work)"), bad)
    }

    func testMQTTOptionsThatDoNotGoTogetherAreUsageErrors() throws {
        for (arguments, message) in [
            (["--mqtt-user", "c1nk"], "--mqtt-user, --mqtt-password-file, --mqtt-topic and --mqtt-trust-ca need --mqtt URL too"),
            (["--mqtt", "mqtt://127.0.0.1:1", "--mqtt-trust-ca", "/etc/hostname"], "--mqtt-trust-ca is for mqtts://"),
            (["--mqtt", "mqtt://127.0.0.1:1", "--mqtt-topic", "c1nk/#"], "holds a wildcard"),
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
}

/// This machine's name, as the command reads it for the device name.
enum MQTTCommandOptionsHostname {
    static var name: String {
        var buffer = [CChar](repeating: 0, count: 256)
        _ = gethostname(&buffer, 255)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
