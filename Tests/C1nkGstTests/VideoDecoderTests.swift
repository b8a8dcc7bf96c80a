import CTestDecoders
import Foundation
import Synchronization
import XCTest
@testable import C1nkDoor
@testable import C1nkGLib
@testable import C1nkLocal
@testable import C1nkMedia

/// Which element decodes the door's video (`--decoder`, ranks, probes) and
/// what happens when it fails: a decoder that errors mid-call is replaced
/// within one keyframe and given up for the next call; one that hangs is
/// given up within 2 s. The failing and hanging decoders are test elements
/// (`CTestDecoders`) that call themselves hardware, registered in this
/// process at rank none.
final class VideoDecoderTests: XCTestCase {
    typealias Command = AnswerCommandTests.Command

    override class func setUp() {
        super.setUp()
        GStreamer.initialize()
        c1nk_test_decoders_register()
    }

    /// A call through the real command (`--answer auto`); its `decoder` event.
    private func decoderOfACall(_ extra: [String], environment: [String: String] = [:]) throws -> [String: Any] {
        Log.echoToStandardError = false
        defer { Log.echoToStandardError = true }
        let (server, door) = try AnswerCommandTests.serverAndDoor { _ in }
        defer { door.stop(); server.stop() }
        let directory = temporaryDirectory()
        let events = directory + "/events.jsonl"
        let command = try Command("c1nk-gst-answer", [
            "--server", server.url, "--events", events, "--device-id-file", directory + "/id", "--answer", "auto",
            "--hangup-after", "1", "--exit-after-calls", "1", "--stun", "none", "--ice-local-ip", "127.0.0.1",
            "--ringtone", "none", "--screens", "off", "--audio-source", "audiotestsrc is-live=true",
            "--audio-sink", "fakesink", "--sink", "fakesink"] + extra, environment: environment)
        defer { if command.process.isRunning { command.signal(SIGKILL); _ = command.wait() } }
        waitUntil("answerer connected") { door.isReady && server.connectedAppIds.count == 1 }
        door.ring()
        XCTAssertEqual(command.wait(timeout: 30), 0, command.stderr)
        return try XCTUnwrap(AnswerCommandTests.events(in: events).first { $0["event"] as? String == "decoder" }, command.stderr)
    }

    func testTheHighestRankedDecoderDecodesAndDecoderNamesOneAboveEveryRank() throws {
        let forced = try decoderOfACall([], environment: ["GST_PLUGIN_FEATURE_RANK": "avdec_vp8:MAX"])
        XCTAssertEqual(forced["element"] as? String, "avdec_vp8", "a rank forced from outside is obeyed")
        XCTAssertEqual(forced["hardware"] as? Bool, false)
        let chosen = try decoderOfACall(["--decoder", "vp8dec"], environment: ["GST_PLUGIN_FEATURE_RANK": "avdec_vp8:MAX"])
        XCTAssertEqual(chosen["element"] as? String, "vp8dec", "--decoder ELEMENT goes above every rank")
    }

    func testAnUnknownDecoderIsAUsageErrorThatNamesTheDecodersHere() throws {
        func run(_ arguments: [String]) throws -> (status: Int32?, err: String) {
            let command = try Command("c1nk-gst-answer", arguments)
            return (command.wait(timeout: 20), command.stderr)
        }
        let result = try run(["--decoder", "nosuchdec", "--server", "ws://127.0.0.1:1/ws", "--stun", "none"])
        XCTAssertEqual(result.status, 2)
        XCTAssertTrue(result.err.contains("--decoder nosuchdec: no video decoder of that name"), result.err)
        XCTAssertTrue(result.err.contains("vp8dec"), "the decoders of this machine are named: \(result.err)")
        let bad = try run(["--decoder", "vp8dec ! identity", "--server", "ws://127.0.0.1:1/ws"])
        XCTAssertEqual(bad.status, 2, "an element's name, never a description")
    }

    /// The test decoder fails after 45 frames; the door's next scheduled
    /// keyframe is 20 s away, so the picture can only come back through the
    /// keyframe the fallback asks for.
    func testADecoderThatFailsMidCallIsReplacedWithinAKeyframeAndGivenUpForTheNextCall() throws {
        try VideoDecoders.apply(.element("c1nkfailingvp8dec"))
        defer { VideoDecoders.giveUp("c1nkfailingvp8dec", reason: "the test is over") }
        var decoders: [(element: String, failed: String?)] = []
        var failedAtFrames: Int?
        var failedAt: Date?
        var failure: String?
        let (session, door) = try call { session in
            session.onDecoder = { element, _, failed, _ in
                decoders.append((element, failed))
                if failed != nil { failedAtFrames = session.framesRendered; failedAt = Date() }
            }
            session.onFailure = { failure = $0 }
        }
        defer { session.stop(); door.stop() }
        waitUntil("the test decoder fails and another takes over", timeout: 15) { failedAtFrames != nil || failure != nil }
        XCTAssertNil(failure, "the call goes on")
        XCTAssertEqual(decoders.first?.element, "c1nkfailingvp8dec", "it decoded the first frames")
        XCTAssertEqual(decoders.last?.failed, "c1nkfailingvp8dec")
        XCTAssertEqual(decoders.last?.element, "vp8dec", "the software decoder took over")
        let before = try XCTUnwrap(failedAtFrames)
        waitUntil("frames again after the fallback", timeout: 10) { session.framesRendered >= before + 30 }
        XCTAssertNil(failure)
        XCTAssertLessThan(Date().timeIntervalSince(try XCTUnwrap(failedAt)), 8, "back within the keyframe it asked for, long before the door's own")
        XCTAssertEqual(VideoDecoders.choice(for: "VP8")?.name, "vp8dec", "the next call skips the failed decoder")
        XCTAssertNotNil(VideoDecoders.givenUp["c1nkfailingvp8dec"])
    }

    func testAHangingDecoderIsGivenUpWithinTwoSecondsAndAWorkingOneDecodesItsProbe() throws {
        let working = DecoderProbe.run("vp8dec", codec: "VP8")
        XCTAssertNil(working.failure)
        XCTAssertNil(DecoderProbe.run("avdec_h264", codec: "H264").failure)
        let began = Date()
        let hung = DecoderProbe.run("c1nkhangingvp8dec", codec: "VP8")
        XCTAssertLessThan(Date().timeIntervalSince(began), 2.9, "given up on at its timeout")
        XCTAssertTrue(hung.failure?.contains("hangs") == true, hung.failure ?? "no failure")

        // Ranked above the software decoder, auto probes it and takes it out.
        try VideoDecoders.apply(.element("c1nkhangingvp8dec"))
        XCTAssertEqual(VideoDecoders.choice(for: "VP8")?.name, "c1nkhangingvp8dec")
        let outcomes = Mutex<[DecoderProbe.Outcome]?>(nil)
        VideoDecoders.probeHardware { found in outcomes.withLock { $0 = found } }
        waitUntil("the probes", timeout: 10) { outcomes.withLock { $0 } != nil }
        XCTAssertEqual(outcomes.withLock { $0 }?.map(\.decoder), ["c1nkhangingvp8dec"])
        XCTAssertEqual(VideoDecoders.choice(for: "VP8")?.name, "vp8dec", "the hung decoder is not taken")
    }

    /// A door and an answering session in this process, VP8, keyframes only on request.
    private func call(_ configure: @escaping (AnswerSession) -> Void) throws -> (AnswerSession, DoorMediaSession) {
        var doorOptions = DoorMediaSession.Options()
        doorOptions.codec = .vp8
        doorOptions.ice = .loopback
        doorOptions.keyframeDistance = 600
        doorOptions.width = 320
        doorOptions.height = 240
        let door = try DoorMediaSession(options: doorOptions)
        let configuration = MediaSessionTests.testConfiguration()
        var answerer: AnswerSession?
        door.onOffer = { offer in
            guard let session = try? AnswerSession(callId: "decoder", offer: offer, configuration: configuration, audioEnabled: false) else { return }
            session.onAnswer = { door.applyAnswer($0) }
            session.onLocalCandidate = { door.addRemoteCandidate($0) }
            configure(session)
            answerer = session
        }
        door.onLocalCandidate = { answerer?.addRemoteCandidate($0) }
        waitUntil("the answering session", timeout: 10) { answerer != nil }
        return (answerer!, door)
    }
}
