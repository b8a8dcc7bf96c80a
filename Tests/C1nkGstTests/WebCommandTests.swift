import Foundation
import Glibc
import XCTest
@testable import C1nkDoor
@testable import C1nkGLib
@testable import C1nkLocal
@testable import C1nkWeb

/// `c1nk-gst-answer --web-port` as a user runs it, with a real call from the
/// simulated door: the login, sessions, CSRF, the API and its event stream
/// over HTTPS (curl), and every bad input of the issue.
final class WebCommandTests: XCTestCase {
    static let password = "correct horse battery"
    static let token = "0123456789abcdef0123456789abcdef"

    struct Answerer {
        let command: AnswerCommandTests.Command
        let port: UInt16
        let directory: String
        let recordings: String
    }

    /// The answerer on the door's server with the web page on, a password set with `web-password`.
    static func startAnswerer(server: SignalServer, audioSource: String = "audiotestsrc is-live=true", extra: [String] = [],
                              scheme: String = "https", history: String? = nil, record: String? = nil) throws -> Answerer {
        let directory = temporaryDirectory()
        if let history {
            try FileManager.default.createDirectory(atPath: directory + "/state/c1nk", withIntermediateDirectories: true)
            try history.write(toFile: directory + "/state/c1nk/history.jsonl", atomically: true, encoding: .utf8)
        }
        let passwordFile = directory + "/web-password"
        let setter = Process()
        setter.executableURL = AnswerCommandTests.binaries.appendingPathComponent("c1nk-gst-answer")
        setter.arguments = ["web-password", "--web-password-file", passwordFile]
        let input = Pipe()
        setter.standardInput = input
        setter.standardError = FileHandle.nullDevice
        try setter.run()
        input.fileHandleForWriting.write(Data((Self.password + "\n").utf8))
        try input.fileHandleForWriting.close()
        setter.waitUntilExit()
        XCTAssertEqual(setter.terminationStatus, 0)
        let stored = try String(contentsOfFile: passwordFile, encoding: .utf8)
        XCTAssertTrue(stored.hasPrefix("$y$"), "a yescrypt hash, not the password: \(stored)")
        var info = stat()
        stat(passwordFile, &info)
        XCTAssertEqual(info.st_mode & 0o777, 0o600)
        let tokenFile = directory + "/web-token"
        try (Self.token + "\n").write(toFile: tokenFile, atomically: true, encoding: .utf8)
        chmod(tokenFile, 0o600)
        let recordings = directory + "/recordings"
        try FileManager.default.createDirectory(atPath: recordings, withIntermediateDirectories: true)
        let port = WebClient.freePort()
        let command = try AnswerCommandTests.Command("c1nk-gst-answer", [
            "--server", server.url, "--device-id-file", directory + "/id", "--answer", "manual",
            "--stun", "none", "--ice-local-ip", "127.0.0.1", "--sink", "fakesink", "--audio-sink", "fakesink",
            "--audio-source", audioSource, "--ringtone", "none",
            "--record", record ?? recordings + "/call.mkv",
            "--web-port", String(port), "--web-password-file", passwordFile, "--web-token-file", tokenFile] + extra,
            environment: ["XDG_STATE_HOME": directory + "/state"])
        let client = WebClient(port: port, scheme: scheme)
        waitUntil("the web page is served", timeout: 15) { client.request("GET", "/").status == 200 || !command.process.isRunning }
        XCTAssertTrue(command.process.isRunning, command.stderr)
        return Answerer(command: command, port: port, directory: directory, recordings: recordings)
    }

    func testLoginCommandsOneAcceptAndTheEventStreamOverHTTPS() throws {
        Log.echoToStandardError = false
        defer { Log.echoToStandardError = true }
        var doorEvents: [SimulatedDoor.Event] = []
        let (server, door) = try AnswerCommandTests.serverAndDoor(configure: { $0.media.doorName = "Vchod B" }) { doorEvents.append($0) }
        defer { door.stop(); server.stop() }
        let answerer = try Self.startAnswerer(server: server)
        defer { answerer.command.signal(SIGTERM); _ = answerer.command.wait() }
        // The self-signed certificate was made once, owner-only, in the state folder.
        var info = stat()
        XCTAssertEqual(stat(answerer.directory + "/state/c1nk/web-key.pem", &info), 0)
        XCTAssertEqual(info.st_mode & 0o077, 0)

        var browser = WebClient(port: answerer.port)
        XCTAssertEqual(browser.request("GET", "/api/state").status, 401, "nothing without logging in")
        let login = browser.login(Self.password)
        XCTAssertEqual(login.status, 200, login.body)
        let cookie = try XCTUnwrap(login.headers["set-cookie"])
        for part in ["HttpOnly", "Secure", "SameSite=Strict"] { XCTAssertTrue(cookie.contains(part), cookie) }
        XCTAssertNotNil(browser.csrf)
        let page = browser.request("GET", "/")
        XCTAssertTrue(page.body.contains("<script src=\"app.js\">"))
        XCTAssertNotNil(page.headers["content-security-policy"])

        var script = WebClient(port: answerer.port)
        script.token = Self.token
        let stream = answerer.directory + "/events.txt"
        let events = try script.events(into: stream)
        defer { events.terminate() }
        func streamed() -> String { (try? String(contentsOfFile: stream, encoding: .utf8)) ?? "" }
        waitUntil("the stream's first state") { streamed().contains("event: state") }

        waitUntil("registered") { door.isReady && (browser.request("GET", "/api/state").json["online"] as? Bool ?? false) }
        XCTAssertEqual(browser.request("GET", "/api/state").json["state"] as? String, "idle")
        XCTAssertEqual(browser.request("POST", "/api/command", json: ["command": "accept"]).status, 409, "no ring yet")
        door.ring()
        waitUntil("ringing in the API") { browser.request("GET", "/api/state").json["state"] as? String == "ringing" }
        XCTAssertEqual(browser.request("GET", "/api/state").json["door"] as? String, "Vchod B")
        waitUntil("the ring on the stream") { streamed().contains("event: ringing") && streamed().contains("Vchod B") }

        let noCSRF = browser.request("POST", "/api/command", json: ["command": "accept"], csrf: false)
        XCTAssertEqual(noCSRF.status, 403, "a state change needs the CSRF token")
        var wrong = browser
        wrong.csrf = "not-it"
        XCTAssertEqual(wrong.request("POST", "/api/command", json: ["command": "accept"]).status, 403)
        XCTAssertEqual(browser.request("GET", "/api/state").json["state"] as? String, "ringing", "refused requests changed nothing")

        let accepted = browser.request("POST", "/api/command", json: ["command": "accept"])
        XCTAssertEqual(accepted.status, 200, accepted.body)
        let second = script.request("POST", "/api/command", json: ["command": "accept"])
        XCTAssertEqual(second.status, 409)
        XCTAssertEqual(second.json["error"] as? String, "prijaté inde")
        XCTAssertEqual(second.json["answeredElsewhere"] as? Bool, true)
        waitUntil("in a call") { browser.request("GET", "/api/state").json["state"] as? String == "call" }

        XCTAssertEqual(script.request("POST", "/api/command", json: ["command": "open"]).status, 200, "a script's token needs no CSRF")
        waitUntil("the door opened") { doorEvents.contains(.doorOpened) }
        waitUntil("confirmed in the API") { browser.request("GET", "/api/state").json["doorOpened"] as? Bool == true }
        XCTAssertEqual(browser.request("POST", "/api/command", json: ["command": "dance"]).status, 400)
        XCTAssertEqual(browser.request("POST", "/api/command", json: ["command": "hangup"]).status, 200)
        waitUntil("idle again") { browser.request("GET", "/api/state").json["state"] as? String == "idle" }
        waitUntil("the stream saw it all") { ["event: accepted", "event: door-opened", "event: ended"].allSatisfy(streamed().contains) }

        let calls = browser.request("GET", "/api/calls").json
        let rings = try XCTUnwrap(calls["rings"] as? [[String: Any]])
        XCTAssertEqual(rings.first?["door"] as? String, "Vchod B")
        XCTAssertEqual(rings.first?["outcome"] as? String, "answered")
        XCTAssertNotNil(rings.first?["t"] as? Int)
        waitUntil("the recording listed") { !(browser.request("GET", "/api/calls").json["recordings"] as? [[String: Any]] ?? []).isEmpty }
        let recording = try XCTUnwrap((browser.request("GET", "/api/calls").json["recordings"] as? [[String: Any]])?.first?["name"] as? String)
        let file = browser.request("GET", "/api/recordings/" + recording)
        XCTAssertEqual(file.status, 200)
        XCTAssertEqual(file.headers["content-type"], "video/x-matroska")
        // The visitor's snapshot, beside the recording, by the name the ring gives.
        let picture = try XCTUnwrap(rings.first?["snapshot"] as? String, "the ring lists its snapshot: \(rings)")
        XCTAssertEqual(picture, (recording as NSString).deletingPathExtension + ".jpg")
        let jpeg = browser.request("GET", "/api/snapshots/" + picture)
        XCTAssertEqual(jpeg.status, 200)
        XCTAssertEqual(jpeg.headers["content-type"], "image/jpeg")

        let sessionStream = try browser.events(into: answerer.directory + "/session-events.txt")
        defer { if sessionStream.isRunning { sessionStream.terminate() } }
        waitUntil("the session's stream") { ((try? String(contentsOfFile: answerer.directory + "/session-events.txt", encoding: .utf8)) ?? "").contains("event: state") }
        XCTAssertEqual(browser.request("POST", "/api/logout", json: [:]).status, 200)
        XCTAssertEqual(browser.request("GET", "/api/state").status, 401, "the session ended")
        waitUntil("its event stream ended with it") { !sessionStream.isRunning }
    }

    func testBadInputIsRefused() throws {
        Log.echoToStandardError = false
        defer { Log.echoToStandardError = true }
        let server = try SignalServer()
        defer { server.stop() }
        let answerer = try Self.startAnswerer(server: server, history: "{\"t\":1700000000000,\"door\":\"Dvor\",\"outcome\":\"answered-elsewhere\"}\n")
        defer { answerer.command.signal(SIGTERM); _ = answerer.command.wait() }
        try Data("not ours".utf8).write(to: URL(fileURLWithPath: answerer.directory + "/secret.mkv"))
        try Data("ours".utf8).write(to: URL(fileURLWithPath: answerer.recordings + "/call-1.mkv"))

        var browser = WebClient(port: answerer.port)
        XCTAssertEqual(browser.login(Self.password).status, 200)
        // The rings before this process, from the ring history file.
        let seeded = (browser.request("GET", "/api/calls").json["rings"] as? [[String: Any]])?.first
        XCTAssertEqual(seeded?["door"] as? String, "Dvor")
        XCTAssertEqual(seeded?["outcome"] as? String, "answered-elsewhere")
        XCTAssertEqual(seeded?["t"] as? Int, 1_700_000_000_000)
        // Paths outside the web root, plain and encoded.
        for path in ["/../../../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd", "/..%2f..%2fetc%2fpasswd", "/.hidden", "/a/../../x"] {
            let reply = browser.request("GET", path, asIs: true)
            XCTAssertTrue([400, 404].contains(reply.status), "\(path): \(reply.status)")
            XCTAssertFalse(reply.body.contains("root:"), path)
        }
        // Recordings: ours only.
        XCTAssertEqual(browser.request("GET", "/api/recordings/call-1.mkv").body, "ours")
        for name in ["secret.mkv", "..%2Fsecret.mkv", "%2E%2E%2Fsecret.mkv", "id", "call-2.mkv", "..%2Fweb-password"] {
            let reply = browser.request("GET", "/api/recordings/" + name, asIs: true)
            XCTAssertTrue([400, 404].contains(reply.status), "\(name): \(reply.status)")
            XCTAssertFalse(reply.body.contains("not ours"), name)
        }
        // Snapshots: only those a ring names.
        for name in ["call-1.mkv", "secret.jpg", "..%2Fweb-password", "%2E%2E%2Fid", ""] {
            let status = browser.request("GET", "/api/snapshots/" + name, asIs: true).status
            XCTAssertTrue([400, 404].contains(status), "\(name): \(status)")
        }
        // A 10 MB body is refused before it is read.
        let big = answerer.directory + "/big"
        try Data(count: 10 * 1024 * 1024).write(to: URL(fileURLWithPath: big))
        let huge = browser.request("POST", "/api/command", bodyFile: big, headers: ["Content-Type: application/json"])
        XCTAssertEqual(huge.status, 413)
        XCTAssertEqual(browser.request("POST", "/api/command", bodyFile: "/dev/null", headers: ["Transfer-Encoding: chunked"]).status, 400,
                       "a chunked body under the cap is read (empty: not a command)")
        XCTAssertEqual(browser.request("GET", "/api/state").status, 200, "the server is still there")
        // Malformed JSON, a wrong token.
        XCTAssertEqual(browser.request("POST", "/api/command", bodyFile: "/etc/hostname", headers: ["Content-Type: application/json"]).status, 400)
        var stranger = WebClient(port: answerer.port)
        stranger.token = "ffffffffffffffffffffffffffffffff"
        XCTAssertEqual(stranger.request("GET", "/api/state").status, 401)
        stranger.token = nil
        stranger.cookie = "forged"
        XCTAssertEqual(stranger.request("GET", "/api/state").status, 401)
        // Wrong passwords: 401, then 429 with Retry-After, even for the right one.
        var guesser = WebClient(port: answerer.port)
        for _ in 0..<5 { XCTAssertEqual(guesser.login("wrong").status, 401) }
        let limited = guesser.login(Self.password)
        XCTAssertEqual(limited.status, 429)
        XCTAssertNotNil(limited.headers["retry-after"])
        XCTAssertNil(guesser.cookie)
        XCTAssertEqual(browser.request("GET", "/api/state").status, 200, "a session already open goes on")
    }

    func testUsageErrorsAndPlainHTTPOnLoopback() throws {
        func run(_ arguments: [String], environment: [String: String] = [:]) throws -> (status: Int32?, err: String) {
            let command = try AnswerCommandTests.Command("c1nk-gst-answer", arguments, environment: environment)
            return (command.wait(), command.stderr)
        }
        let lonely = try run(["--web-cert", "/etc/hostname"])
        XCTAssertEqual(lonely.status, 2, lonely.err)
        XCTAssertTrue(lonely.err.contains("need --web-port"), lonely.err)
        let half = try run(["--web-port", "8443", "--web-cert", "/etc/hostname"])
        XCTAssertEqual(half.status, 2, half.err)
        XCTAssertTrue(half.err.contains("--web-key"), half.err)
        let zero = try run(["--web-port", "0"])
        XCTAssertEqual(zero.status, 2, zero.err)
        let directory = temporaryDirectory()
        let noPassword = try run(["--server", "ws://127.0.0.1:9/ws", "--device-id-file", directory + "/id", "--web-port", "1",
                                         "--web-password-file", directory + "/none"], environment: ["XDG_STATE_HOME": directory])
        XCTAssertEqual(noPassword.status, 1, noPassword.err)
        XCTAssertTrue(noPassword.err.contains("c1nk-gst-answer web-password"), noPassword.err)
        let plainWithCertificate = try run(["--web-port", "8443", "--web-plain-http", "--web-cert", "/etc/hostname", "--web-key", "/etc/hostname"])
        XCTAssertEqual(plainWithCertificate.status, 2, plainWithCertificate.err)

        // HTTPS listens on every interface; plain HTTP only on loopback.
        Log.echoToStandardError = false
        defer { Log.echoToStandardError = true }
        let server = try SignalServer()
        defer { server.stop() }
        let secure = try Self.startAnswerer(server: server)
        XCTAssertTrue(Self.accepts("127.0.0.2", port: secure.port), "every interface: " + secure.command.stderr)
        secure.command.signal(SIGTERM)
        _ = secure.command.wait()
        let plain = try Self.startAnswerer(server: server, extra: ["--web-plain-http"], scheme: "http")
        defer { plain.command.signal(SIGTERM); _ = plain.command.wait() }
        XCTAssertTrue(Self.accepts("127.0.0.1", port: plain.port), plain.command.stderr)
        XCTAssertFalse(Self.accepts("127.0.0.2", port: plain.port), "127.0.0.1 only: " + plain.command.stderr)
        var client = WebClient(port: plain.port, scheme: "http")
        let login = client.login(Self.password)
        XCTAssertEqual(login.status, 200, login.body + plain.command.stderr)
        let state = client.request("GET", "/api/state")
        XCTAssertEqual(state.status, 200, state.body + plain.command.stderr)
    }

    /// Whether a TCP connection to `host:port` is accepted. 127.0.0.2 is a
    /// loopback address a socket bound to 127.0.0.1 does not answer on, and
    /// one bound to every interface does.
    static func accepts(_ host: String, port: UInt16) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr(host)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0
    }
}

extension WebCommandTests {
    /// `POST /api/whep` refused for every bad input, and at most ten browsers watching.
    func testMediaOffersTheirRefusalsAndTenViewersAtMost() throws {
        Log.echoToStandardError = false
        defer { Log.echoToStandardError = true }
        let (server, door) = try AnswerCommandTests.serverAndDoor { _ in }
        defer { door.stop(); server.stop() }
        let answerer = try Self.startAnswerer(server: server)
        defer { answerer.command.signal(SIGTERM); _ = answerer.command.wait() }
        let directory = temporaryDirectory()
        let offerFile = directory + "/offer.sdp"
        try WHEPOfferTests.offer(playoutDelay: 5).write(toFile: offerFile, atomically: true, encoding: .utf8)
        try "hello, not SDP".write(toFile: directory + "/bad.sdp", atomically: true, encoding: .utf8)
        var browser = WebClient(port: answerer.port)
        XCTAssertEqual(browser.login(Self.password).status, 200)
        var script = WebClient(port: answerer.port)
        script.token = Self.token
        let sdp = "Content-Type: application/sdp"
        func offer(_ client: WebClient, _ file: String = offerFile, csrf: Bool = true) -> WebClient.Reply {
            client.request("POST", "/api/whep", bodyFile: file, headers: [sdp], csrf: csrf)
        }
        XCTAssertEqual(WebClient(port: answerer.port).request("POST", "/api/whep", bodyFile: offerFile, headers: [sdp]).status, 401)
        XCTAssertEqual(offer(browser, csrf: false).status, 403, "a session's offer needs the CSRF token")
        waitUntil("registered") { door.isReady }
        XCTAssertEqual(offer(script).status, 409, "no call: nothing to watch")
        door.ring()
        waitUntil("the door's media flow to the tap", timeout: 15) { offer(script).status != 409 }
        XCTAssertEqual(script.request("POST", "/api/whep", bodyFile: offerFile, headers: ["Content-Type: text/plain"]).status, 400)
        let malformed = offer(script, directory + "/bad.sdp")
        XCTAssertEqual(malformed.status, 400)
        XCTAssertTrue(malformed.json["error"] as? String ?? "" != "", malformed.body)
        waitUntil("the first viewer") { script.request("GET", "/api/state").json["viewers"] as? Int ?? 0 >= 1 }
        var locations: [String] = []
        while (script.request("GET", "/api/state").json["viewers"] as? Int ?? 0) < WebMediaLimits.viewers {
            let reply = offer(browser)
            XCTAssertEqual(reply.status, 201, reply.body)
            XCTAssertEqual(reply.headers["content-type"], "application/sdp")
            XCTAssertTrue(reply.body.contains("a=candidate:") && reply.body.contains("a=end-of-candidates"), reply.body)
            XCTAssertTrue(reply.body.contains("a=sendonly"), "the door's media go one way to a watching browser")
            XCTAssertTrue(reply.body.contains("a=extmap:5 http://www.webrtc.org/experiments/rtp-hdrext/playout-delay"), "shown at once, not smoothed: " + reply.body)
            XCTAssertTrue(reply.body.contains(" msid:c1nk-door-video "), "the picture a stream of its own, not synchronised with the voice: " + reply.body)
            if let location = reply.headers["location"] { locations.append(location) }
            if locations.count > WebMediaLimits.viewers { break }
        }
        XCTAssertEqual(offer(browser).status, 503, "an eleventh browser")
        let last = try XCTUnwrap(locations.last)
        XCTAssertEqual(browser.request("DELETE", last).status, 200)
        XCTAssertEqual(browser.request("DELETE", last).status, 404, "gone")
        XCTAssertEqual(offer(browser).status, 201, "room again")
        XCTAssertEqual(script.request("POST", "/api/command", json: ["command": "reject"]).status, 200)
        waitUntil("the viewers end with the call") { script.request("GET", "/api/state").json["viewers"] as? Int == 0 }
    }
}

enum WebMediaLimits { static let viewers = 10 }
