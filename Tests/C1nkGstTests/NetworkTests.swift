import CGStreamer
import XCTest
@testable import C1nkDoor
@testable import C1nkGLib
@testable import C1nkMedia
@testable import C1nkPipeline
@testable import C1nkProbes

/// Calls through the simulated door's impaired network (loss on first send,
/// bursts, an outage): NACK/RTX and keyframe requests must repair them, and
/// no corrupt frame may be shown.
final class NetworkTests: XCTestCase {
    struct Outcome {
        var summary: MeasurementProbes.Summary
        var door: (videoSent: Int, videoDropped: Int, retransmissions: Int, outageDropped: Int)
        var offer: String
        var answer: String
    }

    /// The upper end of the `--latency` docs/benchmarks.md advises for lossy
    /// links (100–200 ms): room for a retransmission even on a loaded 2-core
    /// machine, where the door, the answerer and other builds share the CPU.
    static let lossyLinkLatency: UInt = 200

    /// A door and an answerer in this process, candidates handed across;
    /// `seconds` of video after the first frame.
    static func impairedCall(codec: DoorMediaSession.VideoCodec = .vp8, network: NetworkImpairment, seconds: Double,
                             fec: Bool = false, nack: Bool = true, configure: (inout MediaConfiguration) -> Void = { _ in },
                             inspect: (AnswerSession) -> Void = { _ in }) throws -> Outcome {
        var doorOptions = DoorMediaSession.Options()
        doorOptions.codec = codec
        doorOptions.ice = .loopback
        doorOptions.stampTime = true
        // Small frames: less CPU for the door and the answerer sharing a loaded machine.
        doorOptions.width = 320
        doorOptions.height = 240
        doorOptions.network = network
        doorOptions.fec = fec
        doorOptions.nack = nack
        let door = try DoorMediaSession(options: doorOptions)
        var configuration = MediaSessionTests.testConfiguration()
        configuration.measure = true
        configure(&configuration)
        var answerer: AnswerSession?
        var offerText = ""
        var answerText = ""
        var failure: String?
        door.onOffer = { offer in
            offerText = offer
            answerer = try? AnswerSession(callId: "net", offer: offer, configuration: configuration, audioEnabled: false)
            answerer?.onAnswer = { answerText = $0; door.applyAnswer($0) }
            answerer?.onLocalCandidate = { door.addRemoteCandidate($0) }
            answerer?.onFailure = { failure = $0 }
        }
        door.onLocalCandidate = { candidate in answerer?.addRemoteCandidate(candidate) }
        door.onFailure = { failure = "door: \($0)" }
        defer {
            answerer?.stop()
            door.stop()
        }
        waitUntil("first frame", timeout: 15) { (answerer?.framesRendered ?? 0) > 0 || failure != nil }
        MainContext.spin(seconds)
        if let answerer { inspect(answerer) }
        if let failure { XCTFail(failure) }
        let summary = try XCTUnwrap(answerer?.measurements)
        // None when the network is not impaired.
        let counts = door.networkCounts ?? (0, 0, 0, 0)
        return Outcome(summary: summary, door: counts, offer: offerText, answer: answerText)
    }

    static func describe(_ outcome: Outcome) -> String {
        let s = outcome.summary
        return "intact \(s.framesIntact)/\(s.framesSent) (\(String(format: "%.1f", s.intactPercent)) %), longest freeze \(s.longestFreezeMs) ms, "
            + "keyframe requests \(s.keyframeRequests), unreadable \(s.unreadableStamps); door: \(outcome.door); set-up \(s.setupMs)"
    }

    /// The jitterbuffers' latency of each stream of the call, in ms.
    static func jitterbufferLatencies(_ session: AnswerSession) -> [Int] {
        session.pipelineForTests.elements.filter { $0.factoryName == "rtpjitterbuffer" }.map { $0[int: "latency"] }.sorted()
    }

    /// Whether each jitterbuffer asks for retransmissions, by its latency.
    static func jitterbufferRetransmissions(_ session: AnswerSession) -> [Int: Bool] {
        Dictionary(session.pipelineForTests.elements.filter { $0.factoryName == "rtpjitterbuffer" }.map {
            ($0[int: "latency"], $0[bool: "do-retransmission"])
        }, uniquingKeysWith: { $0 || $1 })
    }

    /// Frames shown at once: the door's video waits up to the repair window
    /// for a retransmission, its audio keeps the call's latency. With
    /// `sync=true` on the sink, the video keeps it too (the window would
    /// delay every frame). Only the video asks for retransmissions: the
    /// door sends none for its voice.
    func testVideoWaitsLongerForRepairsThanAudio() throws {
        var latencies: [Int] = []
        var asks: [Int: Bool] = [:]
        let immediate = try Self.impairedCall(network: NetworkImpairment(), seconds: 0.5,
                                              configure: { $0.videoSink = "fakesink" },
                                              inspect: {
                                                  latencies = Self.jitterbufferLatencies($0)
                                                  asks = Self.jitterbufferRetransmissions($0)
                                              })
        XCTAssertEqual(latencies, [20, 100], "audio 20 ms, video 100 ms: \(Self.describe(immediate))")
        XCTAssertEqual(asks, [20: false, 100: true], "retransmissions asked for the video only")
        // The first frame was not held by the wider window.
        XCTAssertLessThan(immediate.summary.setupMs["connectedToFirstFrame"] ?? 0, 1000, Self.describe(immediate))

        _ = try Self.impairedCall(network: NetworkImpairment(), seconds: 0.5,
                                  configure: { $0.videoSink = "fakesink sync=true" },
                                  inspect: { latencies = Self.jitterbufferLatencies($0) })
        XCTAssertEqual(latencies, [20, 20], "a synchronised sink keeps the call's latency")
    }

    func testFivePercentLossIsRepaired() throws {
        var network = NetworkImpairment()
        network.lossPercent = 5
        network.seed = 5
        // The default latency for audio; the video's repair window at the
        // upper end of the lossy-link advice, for a loaded machine.
        let outcome = try Self.impairedCall(network: network, seconds: 6) {
            $0.videoSink = "fakesink"
            $0.videoRepairWindowMilliseconds = Self.lossyLinkLatency
        }
        let text = Self.describe(outcome)
        print("network: \(text)")
        XCTAssertTrue(outcome.answer.contains("rtx/90000"), "RTX answered")
        XCTAssertGreaterThan(outcome.door.videoDropped, 10, "the door really lost packets: \(text)")
        XCTAssertGreaterThan(outcome.door.retransmissions, outcome.door.videoDropped / 2, "lost packets were retransmitted: \(text)")
        XCTAssertGreaterThan(outcome.summary.framesSent, 100, text)
        XCTAssertGreaterThanOrEqual(outcome.summary.intactPercent, 98, text)
        XCTAssertEqual(outcome.summary.unreadableStamps, 0, "no corrupt frame shown: \(text)")
    }

    func testOutageRecoversWithinOneSecond() throws {
        var network = NetworkImpairment()
        network.outageAt = 2
        network.outageMilliseconds = 500
        let outcome = try Self.impairedCall(network: network, seconds: 5) { $0.latencyMilliseconds = Self.lossyLinkLatency }
        let text = Self.describe(outcome)
        print("network: \(text)")
        XCTAssertGreaterThan(outcome.door.outageDropped, 20, text)
        // Shorter than the outage itself when the door's retransmissions
        // bring back the frames of its last ~200 ms (within the jitterbuffer's latency).
        XCTAssertGreaterThanOrEqual(outcome.summary.longestFreezeMs, 250, "the outage froze the picture: \(text)")
        XCTAssertLessThan(outcome.summary.longestFreezeMs, 500 + 1000, "video back within 1 s of the outage's end: \(text)")
        XCTAssertEqual(outcome.summary.unreadableStamps, 0, "no corrupt frame shown: \(text)")
    }

    /// Bad input: a door with RED/ULPFEC, and a door without NACK/RTX, still
    /// give a call; loss repair just does less.
    func testDoorWithFECAndDoorWithoutNACK() throws {
        var network = NetworkImpairment()
        network.lossPercent = 2
        let fec = try Self.impairedCall(network: network, seconds: 2, fec: true) { $0.latencyMilliseconds = Self.lossyLinkLatency }
        XCTAssertTrue(fec.answer.contains("ulpfec/90000"), "ULPFEC answered")
        XCTAssertGreaterThan(fec.summary.framesIntact, 40, Self.describe(fec))
        XCTAssertEqual(fec.summary.unreadableStamps, 0, Self.describe(fec))

        let plain = try Self.impairedCall(network: network, seconds: 2, nack: false)
        XCTAssertFalse(plain.answer.contains("rtx/90000"))
        XCTAssertGreaterThan(plain.summary.framesIntact, 20, Self.describe(plain))
        XCTAssertEqual(plain.summary.unreadableStamps, 0, "still no corrupt frame: \(Self.describe(plain))")
    }
}
