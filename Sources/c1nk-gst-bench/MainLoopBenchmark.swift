import C1nkDoor
import C1nkGLib
import C1nkLocal
import C1nkProbes
import Foundation
import Glibc

/// `--main-loop`: how late the answerer's main context runs a 10 ms timer
/// (its `--measure` `main-loop` event, from the ring to 3 s after the call
/// ended) during a call while, all at once: wrong-password logins at 50 a
/// second from ten loopback addresses, an MQTT broker whose name does not
/// resolve, ten web viewers that go at the hang-up, and a 1 GB recording
/// downloaded over HTTPS.
struct MainLoopFigures: Codable, PrettyJSON {
    var lateMs: LatencyStats
    var loginsSent: Int
    var viewers: Int
    var downloadedMB: Int
    var goalP99Ms = 10.0
    var goalMaxMs = 50.0

    var table: String {
        """
        Main loop under load (a call; 50 logins/s from 10 addresses, an unresolvable broker, \(viewers) viewers hung up, a 1 GB download)
        a 10 ms timer's lateness: p50 \(String(format: "%.1f", lateMs.p50)) ms, p99 \(String(format: "%.1f", lateMs.p99)) ms (goal ≤ \(Int(goalP99Ms)) ms), max \(String(format: "%.1f", lateMs.max)) ms (goal ≤ \(Int(goalMaxMs)) ms), \(lateMs.count) ticks
        load delivered: \(loginsSent) logins, \(downloadedMB) MB downloaded
        """
    }
}

struct MainLoopBenchmark {
    let options: BenchOptions
    static let token = "main-loop-benchmark-token"
    static let viewers = 10
    static let loginAddresses = 10
    static let loginsPerAddressPerSecond = 5

    func run(progress: (String) -> Void) throws -> MainLoopFigures {
        let server = try SignalServer()
        defer { server.stop() }
        var doorOptions = SimulatedDoor.Options(serverURL: server.url)
        doorOptions.media.ice = .loopback
        let door = try SimulatedDoor(doorOptions)
        door.start()
        defer { door.stop() }
        let directory = NSTemporaryDirectory() + "c1nk-main-loop-bench-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(atPath: directory + "/rec", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try WebBenchmark.setPassword(directory + "/web-password")
        try (Self.token + "\n").write(toFile: directory + "/web-token", atomically: true, encoding: .utf8)
        chmod(directory + "/web-token", 0o600)
        // A recording of 1 GB (sparse: it costs no disk), in the folder --record names.
        let recording = "earlier-call.mkv"
        let fd = open(directory + "/rec/" + recording, O_WRONLY | O_CREAT, 0o600)
        guard fd >= 0, ftruncate(fd, 1 << 30) == 0 else { throw BenchError("cannot make the 1 GB recording in \(directory)") }
        close(fd)
        let port = UInt16.random(in: 20_000...40_000)
        let events = directory + "/events.jsonl"
        setenv("XDG_STATE_HOME", directory, 1)
        let answerer = try AnswererProcess.spawn([
            "--server", server.url, "--device-id-file", directory + "/id", "--answer", "manual", "--measure", "--events", events,
            "--stun", "none", "--ice-local-ip", "127.0.0.1", "--sink", "fakesink", "--audio-sink", "fakesink",
            "--audio-source", "audiotestsrc is-live=true", "--ringtone", "none", "--quiet", "--screens", "off",
            "--record", directory + "/rec/{callId}.mkv",
            "--mqtt", "mqtt://c1nk-benchmark-broker.invalid:1883",
            "--web-port", String(port), "--web-password-file", directory + "/web-password", "--web-token-file", directory + "/web-token"])
        defer { answerer.terminate() }
        guard MainContext.run(timeout: 15, until: { door.isReady && server.connectedAppIds.count == 1 }) else {
            throw BenchError("the answerer did not connect")
        }
        let base = "https://127.0.0.1:\(port)"
        progress("main loop: a call, then the load…")
        door.ring()
        guard MainContext.run(timeout: 10, until: { WebBenchmark.count("first-frame", in: events) > 0 }) else { throw BenchError("no first frame") }
        _ = try Curl.run(["-X", "POST", "-H", "Content-Type: application/json", "--data-binary", #"{"command":"accept"}"#, base + "/api/command"], token: Self.token)
        let offer = directory + "/offer.sdp"
        try Self.viewerOffer.write(toFile: offer, atomically: true, encoding: .utf8)
        var viewers = 0
        for _ in 0..<Self.viewers {
            let status = try Curl.run(["-X", "POST", "-H", "Content-Type: application/sdp", "--data-binary", "@" + offer, base + "/api/whep"],
                                      token: Self.token)
            if status == "201" { viewers += 1 }
        }
        let seconds = max(6.0, options.duration)
        let tries = Int(seconds) * Self.loginsPerAddressPerSecond
        let logins = try (0..<Self.loginAddresses).map { index in
            try Curl.start(["--interface", "127.0.0.\(index + 2)", "--rate", "\(Self.loginsPerAddressPerSecond)/s",
                            "-X", "POST", "-H", "Content-Type: application/json", "--data-binary", #"{"password":"not the password"}"#,
                            "-o", "/dev/null", "-w", "%{http_code}\n", base + "/api/login?try=[1-\(tries)]"], output: directory + "/logins-\(index)")
        }
        let download = try Curl.start(["-o", "/dev/null", "-w", "%{size_download}", "-H", "Authorization: Bearer \(Self.token)",
                                       base + "/api/recordings/" + recording], output: directory + "/download")
        defer { (logins + [download]).filter(\.isRunning).forEach { $0.terminate() } }
        MainContext.spin(seconds / 2)
        progress("main loop: hang up with \(viewers) viewers…")
        _ = try Curl.run(["-X", "POST", "-H", "Content-Type: application/json", "--data-binary", #"{"command":"hangup"}"#, base + "/api/command"], token: Self.token)
        guard MainContext.run(timeout: 20, until: { WebBenchmark.count("main-loop", in: events) > 0 }) else {
            throw BenchError("the answerer reported no main-loop figures (a build without them?)")
        }
        _ = MainContext.run(timeout: seconds) { (logins + [download]).allSatisfy { !$0.isRunning } }
        (logins + [download]).filter(\.isRunning).forEach { $0.terminate() }
        let sent = (0..<Self.loginAddresses).map { ((try? String(contentsOfFile: directory + "/logins-\($0)", encoding: .utf8)) ?? "").split(separator: "\n").count }
        let bytes = Int(((try? String(contentsOfFile: directory + "/download", encoding: .utf8)) ?? "0").trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        guard let figures = WebBenchmark.lines(events).last(where: { $0["event"] as? String == "main-loop" })?["lateMs"] as? [String: Any] else {
            throw BenchError("the main-loop event has no lateMs")
        }
        func number(_ key: String) -> Double { (figures[key] as? NSNumber)?.doubleValue ?? 0 }
        var late = LatencyStats([])
        late.count = Int(number("count"))
        late.p50 = number("p50")
        late.p95 = number("p95")
        late.p99 = number("p99")
        late.max = number("max")
        return MainLoopFigures(lateMs: late, loginsSent: sent.reduce(0, +), viewers: viewers, downloadedMB: bytes >> 20)
    }

    /// A browser's offer to watch: VP8 video and Opus, receive only (the viewers never connect: they are torn down).
    static let viewerOffer: String = {
        func section(_ kind: String, _ mid: Int, _ payload: String) -> [String] {
            ["m=\(kind) 9 UDP/TLS/RTP/SAVPF \(payload.prefix { $0 != " " })", "c=IN IP4 0.0.0.0", "a=ice-ufrag:bnch",
             "a=ice-pwd:benchmarkbenchmarkbench0", "a=fingerprint:sha-256 " + Array(repeating: "AB", count: 32).joined(separator: ":"),
             "a=setup:actpass", "a=mid:\(mid)", "a=recvonly", "a=rtcp-mux", "a=rtpmap:\(payload)"]
        }
        let lines = ["v=0", "o=- 1 2 IN IP4 127.0.0.1", "s=-", "t=0 0", "a=group:BUNDLE 0 1"]
            + section("video", 0, "96 VP8/90000") + section("audio", 1, "111 opus/48000/2")
        return lines.joined(separator: "\r\n") + "\r\n"
    }()
}

/// `curl` as a real HTTPS client (the self-signed certificate taken as it is).
enum Curl {
    /// One request, waited for on the main context; its status code.
    static func run(_ arguments: [String], token: String) throws -> String {
        let output = NSTemporaryDirectory() + "c1nk-curl-" + UUID().uuidString.prefix(8)
        defer { unlink(output) }
        let process = try start(["-o", "/dev/null", "-w", "%{http_code}", "-H", "Authorization: Bearer \(token)"] + arguments, output: output)
        _ = MainContext.run(timeout: 15) { !process.isRunning }
        return (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
    }

    /// A request in the background, what it writes to standard output into `output`.
    static func start(_ arguments: [String], output: String) throws -> Process {
        _ = FileManager.default.createFile(atPath: output, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments = ["-sk", "--max-time", "60"] + arguments
        process.standardOutput = FileHandle(forWritingAtPath: output)
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }
}
