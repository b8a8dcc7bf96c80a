import Foundation
import Glibc
import XCTest
@testable import C1nkGLib

/// The Home Assistant add-on's start (`ha-addon/run.sh --convert-only`):
/// the add-on's options and the Supervisor's MQTT service become a config
/// file that `c1nk-gst-answer config --check` accepts, with the secrets in
/// owner-only files and hostile strings kept as values; and the check itself.
final class HomeAssistantAddonTests: XCTestCase {
    typealias Command = AnswerCommandTests.Command

    static let addon = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("ha-addon")

    static let service: [String: Any] = ["result": "ok", "data": ["host": "core-mosquitto", "port": 1883, "username": "addons",
                                                                  "password": "p;w # x\\y", "ssl": false, "protocol": "3.1.1"]]

    struct Conversion {
        let status: Int32?
        let stderr: String
        let directory: String
        var config: String { directory + "/answer.conf" }
        var data: String { directory + "/data" }
        var text: String { (try? String(contentsOfFile: config, encoding: .utf8)) ?? "" }
        /// Each key's raw value in the file, in file order.
        var entries: [(key: String, value: String)] {
            text.split(separator: "\n").filter { !$0.hasPrefix("#") && !$0.hasPrefix("[") }.compactMap { line in
                line.range(of: " = ").map { (String(line[..<$0.lowerBound]), String(line[$0.upperBound...])) }
            }
        }
        func value(_ key: String) -> String? { entries.first { $0.key == key }?.value }
    }

    /// Runs run.sh in convert-only mode with the options `make` gives for a fresh folder.
    func convert(service: [String: Any] = service, _ make: (String) throws -> [String: Any]) throws -> Conversion {
        let directory = temporaryDirectory()
        guard FileManager.default.fileExists(atPath: AnswerCommandTests.binaries.appendingPathComponent("c1nk-gst-answer").path) else {
            throw XCTSkip("c1nk-gst-answer is not built")
        }
        try JSONSerialization.data(withJSONObject: make(directory)).write(to: URL(fileURLWithPath: directory + "/options.json"))
        try JSONSerialization.data(withJSONObject: service).write(to: URL(fileURLWithPath: directory + "/mqtt.json"))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [Self.addon.appendingPathComponent("run.sh").path, "--convert-only", directory + "/answer.conf"]
        var environment = ProcessInfo.processInfo.environment
        environment["SUPERVISOR_TOKEN"] = nil
        environment["PATH"] = AnswerCommandTests.binaries.path + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        environment["C1NK_ADDON_DATA"] = directory + "/data"
        environment["C1NK_ADDON_OPTIONS"] = directory + "/options.json"
        environment["C1NK_ADDON_MQTT_SERVICE"] = directory + "/mqtt.json"
        environment["C1NK_ADDON_MEDIA"] = directory + "/media"
        process.environment = environment
        FileManager.default.createFile(atPath: directory + "/stderr", contents: nil)
        process.standardError = FileHandle(forWritingAtPath: directory + "/stderr")
        process.standardOutput = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let exited = MainContext.run(timeout: 60) { !process.isRunning }
        if !exited { process.terminate() }
        return Conversion(status: exited ? process.terminationStatus : nil,
                          stderr: (try? String(contentsOfFile: directory + "/stderr", encoding: .utf8)) ?? "", directory: directory)
    }

    /// The top-level keys of a block of config.yaml (`options:`, `schema:`) with their one-line values.
    static func block(_ name: String) throws -> [(key: String, value: String)] {
        let text = try String(contentsOf: addon.appendingPathComponent("config.yaml"), encoding: .utf8)
        var inside = false
        var result: [(String, String)] = []
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            if !line.hasPrefix(" ") { inside = line == "\(name):"; continue }
            guard inside, line.hasPrefix("  "), !line.hasPrefix("   "), let colon = line.firstIndex(of: ":") else { continue }
            result.append((String(line.dropFirst(2)[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
        }
        return result
    }

    /// config.yaml's defaults, as the Supervisor writes them to options.json.
    static func defaults() throws -> [String: Any] {
        var options: [String: Any] = [:]
        for (key, value) in try block("options") {
            options[key] = value == "[]" ? [String]() : value == "true" ? true : value == "false" ? false : Int(value).map { $0 as Any } ?? value
        }
        return options
    }

    func check(_ path: String, environment: [String: String] = [:]) throws -> (status: Int32?, out: String, err: String) {
        let command = try Command("c1nk-gst-answer", ["config", "--check", path], environment: environment)
        let status = command.wait()
        return (status, command.stdout, command.stderr)
    }

    /// `--print-config` of `path`: each key's effective value, exactly as applied.
    func printed(_ path: String) throws -> [String: String] {
        let command = try Command("c1nk-gst-answer", ["--config", path, "--print-config"])
        XCTAssertEqual(command.wait(), 0, command.stderr)
        var values: [String: String] = [:]
        for line in command.stdout.split(separator: "\n") where !line.hasPrefix("#") {
            guard let equals = line.range(of: " = ") else { continue }
            values[line[..<equals.lowerBound].trimmingCharacters(in: .whitespaces)] = String(line[equals.upperBound...])
        }
        return values
    }

    func assertOwnerOnly(_ path: String, holding expected: String? = nil, file: StaticString = #filePath, line: UInt = #line) {
        var info = stat()
        XCTAssertEqual(stat(path, &info), 0, "\(path) exists", file: file, line: line)
        XCTAssertEqual(info.st_mode & 0o777, 0o600, "\(path) is owner-only", file: file, line: line)
        if let expected { XCTAssertEqual(try? String(contentsOfFile: path, encoding: .utf8), expected, file: file, line: line) }
    }

    func testEveryOptionBecomesAKeyThatPassesTheCheck() throws {
        let schema = Set(try Self.block("schema").map(\.key))
        XCTAssertTrue(Set(try Self.defaults().keys).isSubset(of: schema), "every default is an option")
        var all: [String: Any] = [:]
        let result = try convert { directory in
            FileManager.default.createFile(atPath: directory + "/ca.pem", contents: Data("-----BEGIN CERTIFICATE-----\n".utf8))
            all = ["server": "wss://sig.example.org/ws", "answer": "auto", "hangup_after": 30, "pipeline": "record",
                   "record": directory + "/door/%Y/%Y%m%d-%H%M%S-{callId}.mkv", "keep_days": 14, "keep_gb": 2.5, "min_free_gb": 0,
                   "sink": "fakesink", "audio_sink": "fakesink", "audio_source": "audiotestsrc is-live=true", "speaker_volume": 80,
                   "stun": ["stun:stun.example.org:3478"], "turn": ["turn://u:p@turn.example.org:3478"],
                   "web_port": 8443, "web_password": "correct horse battery",
                   "mqtt": "mqtts://127.0.0.1:8883", "mqtt_topic": "c1nk/hall", "mqtt_trust_ca": directory + "/ca.pem",
                   "mqtt_open_code": "4711", "mqtt_retain_snapshot": true,
                   "rtsp_port": 8554, "rtsp_user": "viewer", "rtsp_password": "rtsp secret", "gst_debug": "c1nk*:5",
                   "sip_ring": ["sip:**9@192.168.178.1", "sip:phone@192.168.1.30:5062"], "sip_registrar": "sip:192.168.178.1",
                   "sip_user": "tuer620", "sip_password": "sip secret", "sip_address": "127.0.0.1", "sip_port": 5070,
                   "sip_transport": "tcp", "sip_open_key": "#", "sip_audio_only": true]
            return all
        }
        XCTAssertEqual(Set(all.keys), schema, "the sample sets every option of config.yaml")
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertFalse(result.stderr.contains("ignored"), "run.sh knows every option: \(result.stderr)")
        let checked = try check(result.config)
        XCTAssertEqual(checked.status, 0, checked.err + "\n" + result.text)
        XCTAssertEqual(checked.out, "\(result.config): OK\n")
        XCTAssertEqual(result.value("answer"), "auto")
        XCTAssertEqual(result.value("keep-gb"), "2.5")
        XCTAssertEqual(result.value("mqtt"), "mqtts://127.0.0.1:8883", "the option wins over the Supervisor's address")
        XCTAssertEqual(result.value("mqtt-user"), "addons")
        XCTAssertEqual(result.value("web-port"), "8443")
        XCTAssertEqual(result.value("turn"), "turn://u:p@turn.example.org:3478")
        for (key, file) in [("web-password-file", "web-password"), ("mqtt-password-file", "mqtt-password"),
                            ("mqtt-open-code-file", "mqtt-open-code"), ("rtsp-password-file", "rtsp-password"),
                            ("sip-password-file", "sip-password")] {
            XCTAssertEqual(result.value(key), result.data + "/" + file)
            assertOwnerOnly(result.data + "/" + file)
        }
        assertOwnerOnly(result.data + "/mqtt-password", holding: "p;w # x\\y\n")
        assertOwnerOnly(result.data + "/mqtt-open-code", holding: "4711\n")
        assertOwnerOnly(result.data + "/rtsp-password", holding: "rtsp secret\n")
        assertOwnerOnly(result.data + "/sip-password", holding: "sip secret\n")
        XCTAssertEqual(result.value("sip-ring"), "sip:**9@192.168.178.1;sip:phone@192.168.1.30:5062")
        XCTAssertEqual(result.value("sip-open-key"), "#")
        let hash = try String(contentsOfFile: result.data + "/web-password", encoding: .utf8)
        XCTAssertTrue(hash.hasPrefix("$y$") || hash.hasPrefix("$6$"), "a hash, never the password: \(hash)")
        XCTAssertFalse(result.text.contains("correct horse") || result.text.contains("4711") || result.text.contains("rtsp secret")
                       || result.text.contains("sip secret"),
                       "no secret in the config file")
        XCTAssertTrue(FileManager.default.fileExists(atPath: result.directory + "/door"), "the recordings' folder is made")
    }

    func testTheAddOnHasTheProjectsVersion() throws {
        guard let version = try? String(contentsOf: Self.addon.deletingLastPathComponent().appendingPathComponent("VERSION"), encoding: .utf8) else {
            throw XCTSkip("no VERSION file")
        }
        let declared = try String(contentsOf: Self.addon.appendingPathComponent("config.yaml"), encoding: .utf8)
            .split(separator: "\n").first { $0.hasPrefix("version:") }
        XCTAssertEqual(declared, "version: \"\(version.trimmingCharacters(in: .whitespacesAndNewlines))\"")
    }

    func testTheDefaultsRecordIntoMediaWithTheSupervisorsBroker() throws {
        let result = try convert { _ in try Self.defaults() }
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stderr.contains("the web page is off: set web_password"), result.stderr)
        let checked = try check(result.config)
        XCTAssertEqual(checked.status, 0, checked.err + "\n" + result.text)
        XCTAssertEqual(result.value("mqtt"), "mqtt://core-mosquitto:1883")
        XCTAssertEqual(result.value("record"), result.directory + "/media/c1nk/%Y-%m-%d_%H%M%S-{callId}.mkv")
        XCTAssertEqual(result.value("keep-days"), "30")
        XCTAssertEqual(result.value("device-id-file"), result.data + "/device-id")
        XCTAssertNil(result.value("web-port"), "no page without a password")
        XCTAssertNil(result.value("mqtt-open-code-file"), "no code: MQTT can neither accept nor open")
        XCTAssertFalse(FileManager.default.fileExists(atPath: result.data + "/web-password"))
        assertOwnerOnly(result.data + "/mqtt-password", holding: "p;w # x\\y\n")
        assertOwnerOnly(result.config)
        var isDirectory: ObjCBool = false
        XCTAssertTrue(FileManager.default.fileExists(atPath: result.directory + "/media/c1nk", isDirectory: &isDirectory) && isDirectory.boolValue)
    }

    /// `;`, `#`, `\`, `[answer]`, tabs and leading spaces stay inside their value: no key is added.
    func testHostileStringsStayValues() throws {
        let server = "wss://door.example/ws;answer=auto # x \\ y"
        let sink = "   fakesink name=a;b # c\tz \\s"
        let turn = ["turn://u:p;answer=auto@t.example:3478", "turns://a\\b@c.example:5349"]
        let result = try convert { _ in
            var options = try Self.defaults()
            options["server"] = server
            options["sink"] = sink
            options["audio_sink"] = "#fakesink"
            options["audio_source"] = "\taudiotestsrc\t"
            options["mqtt_topic"] = "c1nk/[answer]"
            options["turn"] = turn
            options["rtsp_port"] = 8554
            options["rtsp_user"] = " [answer] answer = auto"
            options["rtsp_password"] = "x\\ny;z"
            return options
        }
        XCTAssertEqual(result.status, 0, result.stderr)
        let checked = try check(result.config)
        XCTAssertEqual(checked.status, 0, checked.err + "\n" + result.text)
        let lines = result.text.split(separator: "\n")
        XCTAssertEqual(lines.filter { $0.hasPrefix("[") }, ["[answer]"], "one group: \(result.text)")
        XCTAssertEqual(result.entries.filter { $0.key == "answer" }.map(\.value), ["manual"])
        XCTAssertEqual(result.entries.count, Set(result.entries.map(\.key)).count, "no key twice: \(result.text)")
        let settings = try printed(result.config)
        XCTAssertEqual(settings["server"], server)
        XCTAssertEqual(settings["sink"], sink)
        XCTAssertEqual(settings["audio-sink"], "#fakesink")
        XCTAssertEqual(settings["audio-source"], "\taudiotestsrc\t")
        XCTAssertEqual(settings["mqtt-topic"], "c1nk/[answer]")
        XCTAssertEqual(settings["rtsp-user"], " [answer] answer = auto")
        XCTAssertEqual(settings["turn"], turn.joined(separator: ";"), "two TURN servers, each whole (each must start with turn:)")
        XCTAssertEqual(settings["answer"], "manual")
        assertOwnerOnly(result.data + "/rtsp-password", holding: "x\\ny;z\n")
    }

    func testLineBreaksAreRefusedAndNothingIsWritten() throws {
        let result = try convert { _ in
            var options = try Self.defaults()
            options["server"] = "wss://door.example/ws\n[answer]\nanswer=auto"
            options["turn"] = ["turn://u:p@t.example:3478", "turn://a\rb@c"]
            return options
        }
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertTrue(result.stderr.contains("the option server holds a line break or another control character; give it on one line"), result.stderr)
        XCTAssertTrue(result.stderr.contains("the option turn[1] holds a line break"), result.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: result.config))
        var service = Self.service
        service["data"] = ["host": "core-mosquitto", "port": 1883, "username": "addons", "password": "a\nmqtt = mqtt://evil:1883"]
        let fromSupervisor = try convert(service: service) { _ in try Self.defaults() }
        XCTAssertEqual(fromSupervisor.status, 1, fromSupervisor.stderr)
        XCTAssertTrue(fromSupervisor.stderr.contains("the Supervisor's MQTT password holds a line break"), fromSupervisor.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: fromSupervisor.config))
    }

    /// Every bad value with its line, exit 2; nothing started, nothing written.
    func testConfigCheckNamesEachProblemWithItsLine() throws {
        let directory = temporaryDirectory()
        let path = directory + "/answer.conf"
        func write(_ text: String) { FileManager.default.createFile(atPath: path, contents: Data(text.utf8)) }
        write("[answer]\nserver = http://door.example/ws\nanswer = sometimes\nlatency = 99999999\nstun = none;stun:a:3478\n")
        let home = temporaryDirectory()
        let environment = ["HOME": home, "XDG_CACHE_HOME": home + "/cache", "GST_REGISTRY_1_0": home + "/registry.bin"]
        var result = try check(path, environment: environment)
        XCTAssertEqual(result.status, 2, result.err)
        XCTAssertEqual(result.out, "")
        for (line, what) in [(2, "server takes a ws:// or wss:// URL"), (3, "answer takes one of auto, manual"),
                             (4, "latency takes a whole number from 0 to 10000"), (5, "stun none cannot be combined")] {
            XCTAssertTrue(result.err.contains("\(path):\(line): \(what)"), "line \(line): \(result.err)")
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: home), [], "no GStreamer registry, no file")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory), ["answer.conf"])

        for (text, expected) in [("[answer]\nanswr = auto\n", "\(path):2: unknown key 'answr'"),
                                 ("[answer]\nthis is not a key\n", "\(path):2: 'this is not a key' is not a key file line"),
                                 ("[door]\nanswer = auto\n", "\(path):2: unknown group [door]"),
                                 ("[answer]\nmqtt-user = c1nk\n", "\(path): --mqtt-user, --mqtt-password-file"),
                                 ("[answer]\npipeline = audio\nrecord = \(directory)/{callId}.mkv\n", "\(path):3: --record was given but the pipeline audio does not record"),
                                 ("[answer]\nkeep-days = 3\n", "give --record PATH or --snapshot PATH too"),
                                 ("[answer]\nrecord = \(directory)/door.mkv\nkeep-days = 3\n", "\(path):2: "),
                                 ("[answer]\nrtsp-port = 8554\n", "\(path): ")] {
            write(text)
            result = try check(path)
            XCTAssertEqual(result.status, 2, "\(text): \(result.err)")
            XCTAssertTrue(result.err.contains(expected), "\(text): \(result.err)")
        }
        result = try check(directory + "/missing.conf")
        XCTAssertEqual(result.status, 2)
        XCTAssertTrue(result.err.contains("\(directory)/missing.conf: cannot read the file"), result.err)
        let bare = try Command("c1nk-gst-answer", ["config"])
        XCTAssertEqual(bare.wait(), 2)
        XCTAssertTrue(bare.stderr.contains("config takes --check FILE"), bare.stderr)
        write("[answer]\n# a kiosk\nanswer = auto\nhangup-after = 30\n")
        result = try check(path)
        XCTAssertEqual(result.status, 0, result.err)
        XCTAssertEqual(result.out, "\(path): OK\n")
    }
}
