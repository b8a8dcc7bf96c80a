import Foundation
import Glibc
import XCTest
@testable import C1nkDoor
@testable import C1nkGLib
@testable import C1nkLocal
@testable import C1nkProbes
import CGStreamer
@testable import C1nkSIP

/// `c1nk-gst-answer --sip-ring` as a user runs it: the simulated door rings
/// a real baresip over SIP, baresip answers, each hears the other, `#` on
/// the phone opens the door and its hang-up ends the call; the options'
/// usage errors and a missing agent library, each said with what to do.
final class SIPCommandTests: XCTestCase {
    private func answerer(server: SignalServer, phone: BaresipPhone, events: String, extra: [String] = []) throws -> AnswerCommandTests.Command {
        guard let sipPort = RTPPortPair.find(on: "127.0.0.1") else { throw XCTSkip("no free loopback UDP port") }
        let directory = temporaryDirectory()
        // The wall's microphone is silent: what the door hears can only be the phone.
        return try AnswerCommandTests.Command("c1nk-gst-answer", [
            "--server", server.url, "--events", events, "--device-id-file", directory + "/id",
            "--stun", "none", "--ice-local-ip", "127.0.0.1", "--sink", "fakesink", "--audio-sink", "fakesink",
            "--audio-source", "audiotestsrc is-live=true wave=silence", "--ringtone", "none",
            "--sip-ring", phone.uri, "--sip-address", "127.0.0.1", "--sip-port", String(sipPort)] + extra)
    }

    func testThePhoneAnswersHearsTheDoorIsHeardOpensWithHashAndHangsUp() throws {
        Log.echoToStandardError = false
        defer { Log.echoToStandardError = true }
        let phone = try BaresipPhone(toneHz: 880)
        defer { phone.stop() }
        var doorEvents: [SimulatedDoor.Event] = []
        let (server, door) = try AnswerCommandTests.serverAndDoor { doorEvents.append($0) }
        defer { door.stop(); server.stop() }
        let events = temporaryDirectory() + "/events.jsonl"
        let command = try answerer(server: server, phone: phone, events: events)
        defer { if command.process.isRunning { command.signal(SIGKILL); _ = command.wait() } }
        func names() -> [String] { AnswerCommandTests.names(AnswerCommandTests.events(in: events)) }
        waitUntil("answerer connected") { door.isReady && server.connectedAppIds.count == 1 }

        door.ring()
        waitUntil("the phone took the call", timeout: 20) { names().contains("accepted") }
        let all = AnswerCommandTests.events(in: events)
        let ringing = try XCTUnwrap(all.first { $0["event"] as? String == "sip-ringing" }, "\(names())")
        XCTAssertEqual(ringing["phones"] as? [String], [phone.uri])
        XCTAssertEqual(all.first { $0["event"] as? String == "sip-answered" }?["phone"] as? String, phone.uri)
        let order = names().filter { ["ringing", "sip-ringing", "sip-answered", "accepted"].contains($0) }
        XCTAssertEqual(order, ["ringing", "sip-ringing", "sip-answered", "accepted"])
        waitUntil("the door accepted", timeout: 10) { doorEvents.contains { if case .accepted = $0 { true } else { false } } }
        let acceptedAt = try XCTUnwrap(door.acceptedAt)

        // The phone's tone reaches the door through the call's microphone chain; the door's voice (440 Hz) reaches the phone.
        waitUntil("the phone heard at the door", timeout: 15) { door.loudestHeard(since: acceptedAt) > -30 }
        waitUntil("the door heard on the phone", timeout: 15) { phone.peakHeard() > 3000 }
        XCTAssertGreaterThan(door.loudestHeard(since: acceptedAt), -30, "the door heard only \(door.loudestHeard(since: acceptedAt)) dBFS")
        XCTAssertGreaterThan(phone.peakHeard(), 3000, "baresip heard: files \(phone.heardFiles); \(command.stderr.suffix(1500))")

        try phone.press("#")
        waitUntil("the door opened from the phone", timeout: 10) { doorEvents.contains(.doorOpened) }
        try phone.hangUp()
        waitUntil("the phone's hang-up ends the door's call", timeout: 10) { names().contains("ended") }
        waitUntil("the door heard the hang-up", timeout: 10) { doorEvents.contains(.callEnded(reason: "hangup")) }
        XCTAssertTrue(command.stderr.contains("answered on \(phone.uri) (SIP)"), command.stderr)

        command.signal(SIGTERM)
        XCTAssertEqual(command.wait(), 0, command.stderr)
    }

    func testTheDoorHangingUpHangsUpThePhone() throws {
        Log.echoToStandardError = false
        defer { Log.echoToStandardError = true }
        let phone = try BaresipPhone()
        defer { phone.stop() }
        var doorEvents: [SimulatedDoor.Event] = []
        let (server, door) = try AnswerCommandTests.serverAndDoor { doorEvents.append($0) }
        defer { door.stop(); server.stop() }
        let events = temporaryDirectory() + "/events.jsonl"
        let command = try answerer(server: server, phone: phone, events: events)
        defer { if command.process.isRunning { command.signal(SIGKILL); _ = command.wait() } }
        func names() -> [String] { AnswerCommandTests.names(AnswerCommandTests.events(in: events)) }
        waitUntil("answerer connected") { door.isReady && server.connectedAppIds.count == 1 }
        door.ring()
        waitUntil("the phone took the call", timeout: 20) { names().contains("accepted") }
        door.hangup()
        waitUntil("the call's end", timeout: 10) { names().contains("ended") }
        waitUntil("baresip's call closed by our BYE", timeout: 10) { phone.log.contains("terminated") || phone.log.contains("closed") }
        command.signal(SIGTERM)
        XCTAssertEqual(command.wait(), 0, command.stderr)
    }

    func testARegistrarDownAtStartIsSaidAndJoinedOnceItIsUp() throws {
        Log.echoToStandardError = false
        defer { Log.echoToStandardError = true }
        guard let registrarPort = RTPPortPair.find(on: "127.0.0.1"), let sipPort = RTPPortPair.find(on: "127.0.0.1") else {
            throw XCTSkip("no free loopback UDP port")
        }
        let (server, door) = try AnswerCommandTests.serverAndDoor { _ in }
        defer { door.stop(); server.stop() }
        let directory = temporaryDirectory()
        let passwordFile = directory + "/sip-password"
        try (KamailioRegistrar.password + "\n").write(toFile: passwordFile, atomically: true, encoding: .utf8)
        chmod(passwordFile, 0o600)
        let events = directory + "/events.jsonl"
        let command = try AnswerCommandTests.Command("c1nk-gst-answer", [
            "--server", server.url, "--events", events, "--device-id-file", directory + "/id", "--stun", "none",
            "--sink", "fakesink", "--audio-sink", "fakesink", "--ringtone", "none",
            "--sip-registrar", "sip:127.0.0.1:\(registrarPort)", "--sip-user", "door", "--sip-password-file", passwordFile,
            "--sip-ring", "sip:phone@127.0.0.1:\(registrarPort)", "--sip-address", "127.0.0.1", "--sip-port", String(sipPort)])
        defer { if command.process.isRunning { command.signal(SIGKILL); _ = command.wait() } }
        func messages() -> [String] { AnswerCommandTests.events(in: events).compactMap { $0["message"] as? String } }
        waitUntil("the failed registration said", timeout: 40) { messages().contains { $0.hasPrefix("SIP registration at sip:127.0.0.1:\(registrarPort) failed") } }
        XCTAssertTrue(messages().contains { $0.contains("trying again in 5 s") }, "\(messages())")
        let kamailio = try KamailioRegistrar(port: registrarPort)
        defer { kamailio.stop() }
        // The retries double from 5 s; kamailio is up within the first or second.
        waitUntil("registered once the registrar is up", timeout: 40) {
            AnswerCommandTests.names(AnswerCommandTests.events(in: events)).contains("sip-registered")
        }
        XCTAssertTrue(kamailio.log.contains("registered sip:door@127.0.0.1"), kamailio.log.suffix(1000).description)
        command.signal(SIGTERM)
        XCTAssertEqual(command.wait(), 0, command.stderr)
    }

    func testAVideoPhoneSeesTheDoorsVideoPassedOnWithoutReencoding() throws {
        Log.echoToStandardError = false
        defer { Log.echoToStandardError = true }
        GStreamer.initialize()
        guard let phonePort = RTPPortPair.find(on: "127.0.0.1"), let videoPort = RTPPortPair.find(on: "127.0.0.1") else {
            throw XCTSkip("no free loopback UDP port")
        }
        // The video phone's screen: the door's VP8 as the phone receives it, decoded here.
        let screen = Pipeline(retaining: try XCTUnwrap(gst_parse_launch("""
            udpsrc address=127.0.0.1 port=\(videoPort) caps="application/x-rtp,media=video,clock-rate=90000,encoding-name=VP8,payload=96" \
            ! rtpvp8depay ! vp8dec ! fakesink name=screen sync=false async=false
            """, nil)))
        defer { _ = screen.setState(GST_STATE_NULL) }
        let frames = FrameCounter()
        screen.element(named: "screen")?.staticPad("sink")?.addProbe(GST_PAD_PROBE_TYPE_BUFFER) { _ in
            frames.value.add(1, ordering: .relaxed)
            return GST_PAD_PROBE_OK
        }
        XCTAssertTrue(screen.setState(GST_STATE_PLAYING))
        let sipp = try SIPp(SIPpScenario.videoPhone(videoPort: videoPort, delay: 1500), calls: 1, port: phonePort)
        defer { sipp.stop() }
        XCTAssertTrue(sipp.waitUntilListening(on: phonePort), sipp.output)
        var doorEvents: [SimulatedDoor.Event] = []
        let (server, door) = try AnswerCommandTests.serverAndDoor { doorEvents.append($0) }
        defer { door.stop(); server.stop() }
        let events = temporaryDirectory() + "/events.jsonl"
        guard let sipPort = RTPPortPair.find(on: "127.0.0.1") else { throw XCTSkip("no free loopback UDP port") }
        let command = try AnswerCommandTests.Command("c1nk-gst-answer", [
            "--server", server.url, "--events", events, "--device-id-file", temporaryDirectory() + "/id",
            "--stun", "none", "--ice-local-ip", "127.0.0.1", "--sink", "fakesink", "--audio-sink", "fakesink",
            "--audio-source", "audiotestsrc is-live=true wave=silence", "--ringtone", "none",
            "--sip-ring", "sip:phone@127.0.0.1:\(phonePort)", "--sip-address", "127.0.0.1", "--sip-port", String(sipPort)])
        defer { if command.process.isRunning { command.signal(SIGKILL); _ = command.wait() } }
        func names() -> [String] { AnswerCommandTests.names(AnswerCommandTests.events(in: events)) }
        waitUntil("answerer connected") { door.isReady && server.connectedAppIds.count == 1 }
        door.ring()
        waitUntil("the video phone took the call", timeout: 20) { names().contains("accepted") }
        // 30 fps: a second and a half of the door's video decoded at the phone, from a keyframe on.
        waitUntil("the door's video at the video phone", timeout: 15) { frames.value.load(ordering: .relaxed) >= 45 }
        XCTAssertGreaterThanOrEqual(frames.value.load(ordering: .relaxed), 45, command.stderr.suffix(1500).description)
        door.hangup()
        XCTAssertEqual(sipp.wait(timeout: 15), 0, "SIPp took our BYE: \(sipp.output.suffix(1500)) \(sipp.errors.suffix(1500))")
        command.signal(SIGTERM)
        XCTAssertEqual(command.wait(), 0, command.stderr)
    }

    func testOptionsThatDoNotGoTogetherAndAMissingAgentLibraryAreSaid() throws {
        func run(_ arguments: [String], environment: [String: String] = [:]) throws -> (Int32, String) {
            let command = try AnswerCommandTests.Command("c1nk-gst-answer", ["--server", "ws://127.0.0.1:9/ws", "--stun", "none",
                                                                            "--device-id-file", temporaryDirectory() + "/id"] + arguments,
                                                         environment: environment)
            defer { if command.process.isRunning { command.signal(SIGKILL); _ = command.wait() } }
            let status = command.wait()
            return (status ?? -1, command.stderr)
        }
        var (status, stderr) = try run(["--sip-user", "door"])
        XCTAssertEqual(status, 2, stderr)
        XCTAssertTrue(stderr.contains("need --sip-ring URI too"), stderr)
        (status, stderr) = try run(["--sip-ring", "sip:phone@127.0.0.1", "--sip-transport", "tls"])
        XCTAssertEqual(status, 2, stderr)
        XCTAssertTrue(stderr.contains("tls is not supported yet; use udp or tcp"), stderr)
        (status, stderr) = try run(["--sip-ring", "sip:phone@127.0.0.1", "--sip-registrar", "sip:fritz.box"])
        XCTAssertEqual(status, 2, stderr)
        XCTAssertTrue(stderr.contains("--sip-registrar needs --sip-user NAME and --sip-password-file PATH too"), stderr)
        (status, stderr) = try run(["--sip-ring", "sip:**9@fritz.box"])
        XCTAssertEqual(status, 2, stderr)
        XCTAssertTrue(stderr.contains("--sip-address is needed"), stderr)
        (status, stderr) = try run(["--sip-ring", "sip:phone@127.0.0.1\r\nX: y"])
        XCTAssertEqual(status, 2, stderr)
        XCTAssertTrue(stderr.contains("--sip-ring: not a SIP address"), stderr)
        (status, stderr) = try run(["--sip-ring", "sip:phone@127.0.0.1", "--sip-port", "0"])
        XCTAssertEqual(status, 2, stderr)
        (status, stderr) = try run(["--sip-ring", "sip:phone@127.0.0.1", "--sip-address", "127.0.0.1"],
                                   environment: ["C1NK_SIP_AGENT_LIBRARY": "/nonexistent/libc1nksipagent.so"])
        XCTAssertEqual(status, 1, stderr)
        XCTAssertTrue(stderr.contains("the SIP agent library libc1nksipagent.so is not installed"), stderr)
        XCTAssertTrue(stderr.contains("reinstall c1nk-gst"), stderr)
    }
}
