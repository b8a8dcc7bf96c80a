import Foundation
import XCTest
@testable import C1nkGLib
@testable import C1nkLocal
@testable import C1nkMedia

/// The config file, `--print-config`, exit codes and limits of
/// `c1nk-gst-answer`, run as a user runs it.
final class ServiceConfigTests: XCTestCase {
    typealias Command = AnswerCommandTests.Command

    /// Runs with a private XDG_CONFIG_HOME and no system config file.
    func run(_ arguments: [String], environment: [String: String] = [:], timeout: Double = 20) throws -> (status: Int32?, out: String, err: String) {
        var environment = environment
        if environment["XDG_CONFIG_HOME"] == nil { environment["XDG_CONFIG_HOME"] = temporaryDirectory() }
        environment["C1NK_SYSTEM_CONFIG"] = environment["C1NK_SYSTEM_CONFIG"] ?? "/nonexistent/answer.conf"
        let command = try Command("c1nk-gst-answer", arguments, environment: environment)
        let status = command.wait(timeout: timeout)
        return (status, command.stdout, command.stderr)
    }

    /// The value of `key` in `--print-config` output (nil when unset or absent).
    static func setting(_ key: String, in output: String) -> String? {
        for line in output.split(separator: "\n") where !line.hasPrefix("#") {
            let parts = line.split(separator: "=", maxSplits: 1)
            if parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces) == key {
                return parts[1].trimmingCharacters(in: .whitespaces)
            }
        }
        return nil
    }

    func write(_ text: String, to path: String) {
        try? FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
    }

    func testDurationsAboveADayAreUsageErrors() throws {
        for option in ["--hangup-after", "--open-door-after", "--answer-delay", "--connect-timeout"] {
            let result = try run([option, "5000000"])
            XCTAssertEqual(result.status, 2, "\(option): \(result.err)")
            XCTAssertTrue(result.err.contains("\(option) takes a number from"), result.err)
            XCTAssertTrue(result.err.contains("86400"), result.err)
        }
        let latency = try run(["--latency", "99999999"])
        XCTAssertEqual(latency.status, 2)
        XCTAssertTrue(latency.err.contains("--latency takes a whole number from 0 to 10000"), latency.err)
    }

    func testHelpStatesTheRealDefaults() throws {
        let result = try run(["--help"])
        XCTAssertEqual(result.status, 0)
        XCTAssertTrue(result.out.contains("--sink DESC              video sink (default chosen at start: autovideosink with a display,"), result.out)
        for server in IceConfiguration().stunServers { XCTAssertTrue(result.out.contains(server), "--help names the default STUN server \(server)") }
        XCTAssertFalse(result.out.contains("(default autovideosink"), "the sink is chosen automatically")
    }

    /// A plugin missing from this machine is a runtime failure naming the Debian package, not bad usage.
    func testMissingPluginExitsOneNamingThePackage() throws {
        let system = "/usr/lib/x86_64-linux-gnu/gstreamer-1.0"
        guard let plugins = try? FileManager.default.contentsOfDirectory(atPath: system), plugins.contains("libgstopus.so") else {
            throw XCTSkip("needs the Debian GStreamer plugins in \(system)")
        }
        let directory = temporaryDirectory()
        try FileManager.default.createDirectory(atPath: directory + "/plugins", withIntermediateDirectories: true)
        for plugin in plugins where plugin.hasSuffix(".so") && plugin != "libgstopus.so" {
            try FileManager.default.createSymbolicLink(atPath: directory + "/plugins/" + plugin, withDestinationPath: system + "/" + plugin)
        }
        let result = try run(["--server", "ws://127.0.0.1:1/ws", "--sink", "fakesink", "--audio-sink", "fakesink",
                              "--audio-source", "audiotestsrc", "--device-id-file", directory + "/id"],
                             environment: ["GST_PLUGIN_SYSTEM_PATH_1_0": directory + "/plugins", "GST_PLUGIN_PATH_1_0": "",
                                           "GST_REGISTRY_1_0": directory + "/registry.bin"], timeout: 60)
        XCTAssertEqual(result.status, 1, result.err)
        XCTAssertTrue(result.err.contains("no element \"opusenc\""), result.err)
        XCTAssertTrue(result.err.contains("install the Debian package gstreamer1.0-plugins-base"), result.err)
    }

    /// Missing shipped pipelines are this machine's problem (exit 1), said with where they were looked for.
    func testMissingShippedPipelinesExitOne() throws {
        let result = try run(["--server", "ws://127.0.0.1:1/ws", "--sink", "fakesink"], environment: ["C1NK_PIPELINES_DIR": "/nonexistent/pipelines"])
        XCTAssertEqual(result.status, 1, result.err)
        XCTAssertTrue(result.err.contains("the shipped pipelines were not found (looked in /nonexistent/pipelines); reinstall c1nk-gst"), result.err)
    }

    func testConfigFileSetsOptionsAndTheCommandLineWins() throws {
        let home = temporaryDirectory()
        let file = home + "/c1nk/answer.conf"
        write("""
        # the kiosk
        [answer]
        server = ws://127.0.0.1:9/ws
        hangup-after = 30
        stun = none
        ice-local-ip = 127.0.0.1;::1
        quiet = true
        """, to: file)
        let result = try run(["--print-config", "--hangup-after", "5"], environment: ["XDG_CONFIG_HOME": home])
        XCTAssertEqual(result.status, 0, result.err)
        let lines = result.out.split(separator: "\n").map(String.init)
        func line(_ key: String) -> String { lines.first { $0.hasPrefix(key + " ") || $0.hasPrefix("# " + key + " ") } ?? "" }
        func source(_ key: String) -> String { lines.first { $0.hasPrefix("# \(key): ") }.map { String($0.dropFirst(key.count + 4)) } ?? "" }
        XCTAssertTrue(line("server").contains("= ws://127.0.0.1:9/ws"), line("server"))
        XCTAssertEqual(source("server"), "\(file):3")
        XCTAssertTrue(line("hangup-after").hasSuffix("= 5"), "the command line wins: \(line("hangup-after"))")
        XCTAssertEqual(source("hangup-after"), "command line")
        XCTAssertTrue(line("ice-local-ip").contains("= 127.0.0.1;::1"), line("ice-local-ip"))
        XCTAssertTrue(line("stun").contains("= none"), line("stun"))
        XCTAssertTrue(line("quiet").contains("= true"), line("quiet"))
        XCTAssertEqual(source("answer"), "default")
        // The printed settings are themselves a valid config file.
        let printed = temporaryDirectory() + "/printed.conf"
        write(result.out, to: printed)
        let again = try run(["--config", printed, "--print-config"])
        XCTAssertEqual(again.status, 0, again.err)
        XCTAssertEqual(Self.setting("hangup-after", in: again.out), "5", again.out)
    }

    func testSystemFileThenUserFileThenExplicitFile() throws {
        let system = temporaryDirectory() + "/answer.conf"
        write("[answer]\nbundle-id = system\nlatency = 100\n", to: system)
        let home = temporaryDirectory()
        write("[answer]\nlatency = 200\n", to: home + "/c1nk/answer.conf")
        let both = try run(["--print-config"], environment: ["XDG_CONFIG_HOME": home, "C1NK_SYSTEM_CONFIG": system])
        XCTAssertEqual(Self.setting("bundle-id", in: both.out), "system", both.out)
        XCTAssertEqual(Self.setting("latency", in: both.out), "200", "the user's file is read after the system's: \(both.out)")
        let explicit = temporaryDirectory() + "/mine.conf"
        write("[answer]\nlatency = 300\n", to: explicit)
        let only = try run(["--config", explicit, "--print-config"], environment: ["XDG_CONFIG_HOME": home, "C1NK_SYSTEM_CONFIG": system])
        XCTAssertEqual(Self.setting("latency", in: only.out), "300", only.out)
        XCTAssertEqual(Self.setting("bundle-id", in: only.out), "eu.c1nk.app", "--config replaces the other files: \(only.out)")
    }

    func testBadConfigFilesNameTheirLineAndExitTwo() throws {
        let cases: [(String, String)] = [
            ("[answer]\nhangup-after = 10\nhangpu-after = 5\n", ":3: unknown key 'hangpu-after'; did you mean hangup-after?"),
            ("[answer]\n\nhangup-after = soon\n", ":3: hangup-after takes a number from 0 to 86400, not 'soon'"),
            ("[answer]\nquiet = maybe\n", ":2: quiet takes true or false, not 'maybe'"),
            ("[answer]\nserver = http://example.org\n", ":2: server takes a ws:// or wss:// URL"),
            ("[answer]\nthis is not a key file\n", ":2: 'this is not a key file' is not a key file line"),
            ("{\"server\": \"ws://x\"}\n", ":1: '{\"server\": \"ws://x\"}' is not a key file line"),
            ("[display]\nsink = fakesink\n", ":2: unknown group [display]; the keys belong in [answer]"),
            ("[answer]\nhelp = true\n", ":2: unknown key 'help'"),
        ]
        for (text, message) in cases {
            let file = temporaryDirectory() + "/answer.conf"
            write(text, to: file)
            let result = try run(["--config", file, "--print-config"])
            XCTAssertEqual(result.status, 2, "\(text): \(result.err)")
            XCTAssertTrue(result.err.contains(file + message), "\(text): \(result.err)")
        }
        let missing = try run(["--config", "/nonexistent/answer.conf"])
        XCTAssertEqual(missing.status, 2)
        XCTAssertTrue(missing.err.contains("--config: cannot read /nonexistent/answer.conf"), missing.err)
    }

    /// SIGHUP applies what can change and reports what needs a restart.
    func testSIGHUPReloadsTheConfig() throws {
        let server = try SignalServer()
        let directory = temporaryDirectory()
        let file = directory + "/answer.conf"
        write("[answer]\nanswer = manual\nbundle-id = one\n", to: file)
        let events = directory + "/events.jsonl"
        let command = try Command("c1nk-gst-answer", ["--config", file, "--server", server.url, "--events", events,
                                                      "--device-id-file", directory + "/id", "--sink", "fakesink",
                                                      "--audio-sink", "fakesink", "--audio-source", "audiotestsrc"])
        waitUntil("registered") { AnswerCommandTests.names(AnswerCommandTests.events(in: events)).contains("registered") }
        write("[answer]\nanswer = auto\nbundle-id = two\n", to: file)
        command.signal(SIGHUP)
        waitUntil("reloaded") { AnswerCommandTests.names(AnswerCommandTests.events(in: events)).contains("reloaded") }
        let reloaded = try XCTUnwrap(AnswerCommandTests.events(in: events).first { $0["event"] as? String == "reloaded" })
        XCTAssertEqual(reloaded["applied"] as? [String], ["answer"])
        XCTAssertEqual(reloaded["needsRestart"] as? [String], ["bundle-id"])
        XCTAssertTrue(command.stderr.contains("restart to apply bundle-id"), command.stderr)
        // A broken file is reported and the process goes on with what it has.
        write("[answer]\nanswer = sometimes\n", to: file)
        command.signal(SIGHUP)
        waitUntil("the error") { command.stderr.contains("the config was not reloaded") }
        XCTAssertTrue(command.stderr.contains(file + ":2: answer takes one of auto, manual"), command.stderr)
        command.signal(SIGTERM)
        XCTAssertEqual(command.wait(), 0, command.stderr)
    }

    /// Under systemd (stderr is the journal stream) each line carries its priority.
    func testJournalPrioritiesWhenStandardErrorIsTheJournal() throws {
        let plain = try run(["--hangup-after", "soon"])
        XCTAssertTrue(plain.err.hasPrefix("c1nk-gst-answer: --hangup-after"), plain.err)
        // JOURNAL_STREAM names stderr's device and inode: here, the file the test collects stderr in.
        let directory = temporaryDirectory()
        let stderrPath = directory + "/stderr"
        let fd = open(stderrPath, O_CREAT | O_WRONLY, 0o644)
        close(fd)
        var info = stat()
        XCTAssertEqual(stat(stderrPath, &info), 0)
        let journal = try Command("c1nk-gst-answer", ["--hangup-after", "soon"],
                                  environment: ["JOURNAL_STREAM": "\(info.st_dev):\(info.st_ino)"], stderrPath: stderrPath)
        XCTAssertEqual(journal.wait(), 2)
        XCTAssertTrue(journal.stderr.hasPrefix("<3>c1nk-gst-answer: --hangup-after"), journal.stderr)
    }

    /// The example config that scripts/install ships names every key, commented, and parses as it is.
    func testTheExampleConfigNamesEveryKey() throws {
        let example = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("systemd/answer.conf.example").path
        let text = try String(contentsOfFile: example, encoding: .utf8)
        let printed = try run(["--config", example, "--print-config"])
        XCTAssertEqual(printed.status, 0, printed.err)
        let keys = printed.out.split(separator: "\n").compactMap { line -> String? in
            guard line.hasPrefix("# "), let colon = line.firstIndex(of: ":"), !line.contains(" = ") else { return nil }
            return String(line[line.index(line.startIndex, offsetBy: 2)..<colon])
        }.filter { !$0.contains(" ") }
        XCTAssertGreaterThan(keys.count, 20)
        for key in keys { XCTAssertTrue(text.contains("\n# \(key) = "), "answer.conf.example shows \(key)") }
    }
}
