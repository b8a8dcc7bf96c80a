import CGStreamer
import XCTest
@testable import C1nkDoor
@testable import C1nkGLib
@testable import C1nkMedia
@testable import C1nkPipeline

/// The intercom's audio: codecs a door may offer, a microphone opened only
/// at accept, bad input from the door, and devices that cannot open.
final class AudioTests: XCTestCase {
    override func setUp() { Log.echoToStandardError = false }
    override func tearDown() { Log.echoToStandardError = true }

    /// A call with a door offering `codec`: both directions heard after the
    /// accept, nothing before, the speaker (the process's mixer) plays the door.
    func talk(codec: DoorMediaSession.AudioCodec) throws -> AudioLoopback {
        var door = DoorMediaSession.Options()
        door.audioCodec = codec
        let call = try AudioLoopback(door: door)
        call.waitForVideo()
        XCTAssertEqual(call.failures, [])
        let session = try XCTUnwrap(call.session)
        XCTAssertFalse(session.isMicrophoneOpen, "the microphone is not opened before accept")
        // Ten more frames (a third of a second of the call) with the microphone closed.
        let frames = session.framesRendered
        waitUntil("ten more frames before accept") { session.framesRendered >= frames + 10 || !call.failures.isEmpty }
        let accepted = MainContext.monotonicSeconds()
        XCTAssertLessThan(call.loudestHeard(since: 0), -60, "nothing heard at the door before accept")
        session.setAudioEnabled(true)
        XCTAssertTrue(session.isMicrophoneOpen)
        waitUntil("the door hears the resident (\(codec))") { call.loudestHeard(since: accepted + 0.2) > -30 }
        waitUntil("the speaker plays the door (\(codec))") { session.speaker.loudest(since: accepted + 0.2) > -30 }
        XCTAssertLessThan(session.speakerPeakWhileGated, -60)
        XCTAssertEqual(call.failures, [])
        XCTAssertEqual(call.audioProblems, [])
        return call
    }

    func testOpusDoorWithInbandFECAndDTXIsHonoured() throws {
        let call = try talk(codec: .opus)
        defer { call.stop() }
        let answer = try XCTUnwrap(call.answer)
        XCTAssertTrue(answer.contains("OPUS/48000"), answer)
        // The door asked for in-band FEC and DTX: our encoder gives them.
        let encoder = try XCTUnwrap(call.session.flatMap { $0.pipelineForTests.elements.first { $0.factoryName == "opusenc" } })
        XCTAssertEqual(encoder[int: "inband-fec"], 1)
        XCTAssertEqual(encoder[int: "dtx"], 1)
    }

    func testPCMUDoor() throws {
        let call = try talk(codec: .pcmu)
        defer { call.stop() }
        XCTAssertTrue(call.answer?.contains("PCMU/8000") ?? false, call.answer ?? "no answer")
    }

    func testPCMADoor() throws {
        let call = try talk(codec: .pcma)
        defer { call.stop() }
        XCTAssertTrue(call.answer?.contains("PCMA/8000") ?? false, call.answer ?? "no answer")
    }

    func testOfferWithOpusParametersChoosesOpusAndItsOptions() throws {
        let sdp = """
        v=0\r\no=- 1 0 IN IP4 0.0.0.0\r\ns=-\r\nt=0 0\r\n\
        m=audio 9 UDP/TLS/RTP/SAVPF 0 111 8\r\nc=IN IP4 0.0.0.0\r\na=mid:audio0\r\n\
        a=rtpmap:0 PCMU/8000\r\na=rtpmap:111 OPUS/48000/2\r\na=fmtp:111 minptime=10;useinbandfec=1\r\na=rtpmap:8 PCMA/8000\r\n
        """
        let summary = try OfferSummary(sdp: sdp)
        XCTAssertEqual(summary.audioCodecs, ["OPUS", "PCMA", "PCMU"])
        let chain = try XCTUnwrap(summary.audioSendChain())
        XCTAssertTrue(chain.encoder.hasPrefix("opusenc inband-fec=true"), chain.encoder)
        XCTAssertFalse(chain.encoder.contains("dtx"), chain.encoder)
        XCTAssertTrue(chain.caps.contains("payload=111"))
    }

    /// A door offering only a codec we cannot decode: audio answered
    /// inactive, the video kept, an error naming what was offered.
    func testUndecodableAudioIsAnsweredInactiveAndVideoGoesOn() throws {
        let call = try AudioLoopback { offer in
            offer.replacingOccurrences(of: "OPUS/48000/2", with: "X-VOX/16000/1")
        }
        defer { call.stop() }
        call.waitForVideo(frames: 20)
        XCTAssertEqual(call.failures, [])
        waitUntil("the audio problem") { !call.audioProblems.isEmpty }
        XCTAssertTrue(call.audioProblems.first?.contains("X-VOX") ?? false, "\(call.audioProblems)")
        let answer = try XCTUnwrap(call.answer)
        let audioSection = try XCTUnwrap(answer.components(separatedBy: "m=audio").last)
        XCTAssertTrue(audioSection.contains("a=inactive"), answer)
        call.session?.setAudioEnabled(true)
        let frames = call.session?.framesRendered ?? 0
        waitUntil("video goes on") { (call.session?.framesRendered ?? 0) > frames + 15 }
        XCTAssertEqual(call.failures, [])
    }

    /// Silence, clipping, 8 kHz mono and no audio at all from the door: no
    /// failure, and the video keeps coming.
    func testBadAudioFromTheDoorLeavesTheVideoAlone() throws {
        let sources: [(String, String?)] = [
            ("silence", "audiotestsrc is-live=true wave=silence"),
            ("clipping", "audiotestsrc is-live=true wave=square volume=1 ! audioamplify amplification=8 clipping-method=clip"),
            ("8 kHz mono", "audiotestsrc is-live=true freq=300 ! audio/x-raw,rate=8000,channels=1"),
        ]
        for (label, source) in sources {
            var door = DoorMediaSession.Options()
            door.audioSource = source
            let call = try AudioLoopback(door: door)
            call.waitForVideo()
            call.session?.setAudioEnabled(true)
            let frames = call.session?.framesRendered ?? 0
            waitUntil("video goes on with \(label)") { (call.session?.framesRendered ?? 0) > frames + 20 || !call.failures.isEmpty }
            XCTAssertEqual(call.failures, [], label)
            if label == "clipping" {
                XCTAssertGreaterThan(call.session?.speaker.loudest(since: 0) ?? -.infinity, -10, "clipped audio still plays")
            }
            call.stop()
        }
    }

    /// The door switches its voice from 48 kHz to 16 kHz mid-call (its Opus
    /// encoder's input caps change): no failure, the door's 16 kHz voice
    /// (quieter, so it can be told apart: -23 dBFS against -5) is heard,
    /// and the video keeps coming.
    func testSampleRateChangeMidCall() throws {
        var door = DoorMediaSession.Options()
        door.audioSource = "audiotestsrc is-live=true freq=440 volume=0.8 num-buffers=150 samplesperbuffer=480"
            + " ! audio/x-raw,rate=48000,channels=1 ! concat name=rates"
            + " audiotestsrc is-live=true freq=600 volume=0.1 samplesperbuffer=160 ! audio/x-raw,rate=16000,channels=1 ! rates. rates."
        let call = try AudioLoopback(door: door)
        defer { call.stop() }
        call.waitForVideo()
        call.session?.setAudioEnabled(true)
        let enabled = MainContext.monotonicSeconds()
        func heard(_ range: ClosedRange<Double>) -> Bool {
            (call.session?.speaker.levels ?? []).contains { $0.time >= enabled && range.contains($0.level) }
        }
        waitUntil("the door's voice at 16 kHz", timeout: 15) { heard(-30 ... -15) || !call.failures.isEmpty }
        let frames = call.session?.framesRendered ?? 0
        let switched = MainContext.monotonicSeconds()
        waitUntil("video goes on") { (call.session?.framesRendered ?? 0) > frames + 20 || !call.failures.isEmpty }
        XCTAssertGreaterThan(call.session?.speaker.loudest(since: switched) ?? -.infinity, -30, "still heard after the switch")
        XCTAssertEqual(call.failures, [])
        XCTAssertEqual(call.audioProblems, [])
    }

    func testDoorWithNoAudioAtAll() throws {
        var door = DoorMediaSession.Options()
        door.audioSource = nil
        let call = try AudioLoopback(door: door)
        defer { call.stop() }
        call.waitForVideo()
        call.session?.setAudioEnabled(true)
        let frames = call.session?.framesRendered ?? 0
        waitUntil("video goes on") { (call.session?.framesRendered ?? 0) > frames + 20 || !call.failures.isEmpty }
        XCTAssertEqual(call.failures, [])
    }

    /// A microphone that cannot open at accept: an audio problem, and the
    /// call goes on with video and the door's audio.
    func testMicrophoneThatCannotOpenLeavesTheCallRunning() throws {
        var configuration = MediaSessionTests.testConfiguration()
        configuration.audioSource = "filesrc location=/nonexistent/microphone ! queue ! rawaudioparse format=pcm pcm-format=s16le sample-rate=48000 num-channels=1"
        let call = try AudioLoopback(configuration: configuration)
        defer { call.stop() }
        call.waitForVideo()
        XCTAssertEqual(call.audioProblems, [], "nothing opened before accept")
        let accepted = MainContext.monotonicSeconds()
        call.session?.setAudioEnabled(true)
        waitUntil("the microphone problem") { !call.audioProblems.isEmpty }
        XCTAssertTrue((call.audioProblems.first ?? "").hasPrefix("the microphone cannot open"), "\(call.audioProblems)")
        let frames = call.session?.framesRendered ?? 0
        waitUntil("video goes on") { (call.session?.framesRendered ?? 0) > frames + 20 }
        waitUntil("the door's audio still plays") { call.session?.speaker.loudest(since: accepted) ?? -.infinity > -30 }
        XCTAssertEqual(call.failures, [])
    }
}

/// The audio options of `c1nk-gst-answer`, as a user gives them.
final class AudioOptionTests: XCTestCase {
    func testAudioOptionsAreReadAndBadValuesRefused() throws {
        func run(_ arguments: [String]) throws -> (status: Int32?, out: String, err: String) {
            let environment = ["XDG_CONFIG_HOME": NSTemporaryDirectory() + "c1nk-audio-options-\(getpid())",
                               "C1NK_SYSTEM_CONFIG": "/nonexistent/answer.conf"]
            let command = try AnswerCommandTests.Command("c1nk-gst-answer", arguments, environment: environment)
            let status = command.wait(timeout: 20)
            return (status, command.stdout, command.stderr)
        }
        let good = try run(["--print-config", "--no-echo-cancel", "--echo-suppression", "high", "--noise-suppression", "off",
                                   "--no-gain-control", "--mic-gain", "6", "--speaker-volume", "50"])
        XCTAssertEqual(good.status, 0, good.err)
        for expected in ["no-echo-cancel", "echo-suppression", "noise-suppression", "no-gain-control", "mic-gain", "speaker-volume"] {
            XCTAssertTrue(good.out.contains(expected), "\(expected) in \(good.out)")
        }
        let lines = good.out.split(separator: "\n").map(String.init)
        func value(_ key: String) -> String {
            lines.first { $0.hasPrefix(key + " ") }.map { $0.components(separatedBy: "= ").last ?? "" } ?? ""
        }
        XCTAssertEqual(value("echo-suppression"), "high")
        XCTAssertEqual(value("noise-suppression"), "off")
        XCTAssertEqual(value("mic-gain"), "6")
        XCTAssertEqual(value("speaker-volume"), "50")
        XCTAssertEqual(value("no-echo-cancel"), "true")
        for (option, value, message) in [("--mic-gain", "40", "--mic-gain takes a number from -40 to 20, not '40'"),
                                         ("--speaker-volume", "-1", "--speaker-volume takes a number from 0 to 400, not '-1'"),
                                         ("--echo-suppression", "max", "--echo-suppression")] {
            let bad = try run([option, value])
            XCTAssertEqual(bad.status, 2, bad.err)
            XCTAssertTrue(bad.err.contains(message), bad.err)
        }
    }
}
