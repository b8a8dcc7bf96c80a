import XCTest
@testable import C1nkDoor
@testable import C1nkGLib
@testable import C1nkMedia

/// The two media ends connected directly in one process, candidates handed
/// across: the fastest real webrtcbin test.
final class MediaSessionTests: XCTestCase {
    static func testConfiguration() -> MediaConfiguration {
        var configuration = MediaConfiguration()
        configuration.ice = .loopback
        configuration.videoSink = "fakesink sync=true"
        configuration.audioSink = "fakesink sync=true"
        configuration.audioSource = "audiotestsrc is-live=true wave=sine freq=660 volume=0.5"
        return configuration
    }

    func loopbackCall(codec: DoorMediaSession.VideoCodec) throws {
        var doorOptions = DoorMediaSession.Options()
        doorOptions.codec = codec
        doorOptions.ice = .loopback
        let door = try DoorMediaSession(options: doorOptions)
        var answerer: AnswerSession?
        var heard: [Double] = []
        var connected = false
        door.onHeardLevel = { heard.append($0) }
        door.onOffer = { offer in
            answerer = try? AnswerSession(callId: "c", offer: offer, configuration: Self.testConfiguration(), audioEnabled: false)
            answerer?.onAnswer = { door.applyAnswer($0) }
            answerer?.onLocalCandidate = { door.addRemoteCandidate($0) }
            answerer?.onConnected = { connected = true }
            answerer?.onFailure = { XCTFail($0) }
        }
        door.onLocalCandidate = { candidate in answerer?.addRemoteCandidate(candidate) }
        door.onFailure = { XCTFail("door: \($0)") }
        waitUntil("connected", timeout: 10) { connected }
        waitUntil("frames", timeout: 10) { (answerer?.framesRendered ?? 0) > 20 }
        // Fifteen more frames (half a second of the call) with the microphone closed.
        waitUntil("fifteen more frames before accept", timeout: 10) { (answerer?.framesRendered ?? 0) > 35 }
        let gatedPeak = heard.max() ?? -.infinity
        XCTAssertLessThan(gatedPeak, -60, "nothing heard at the door before accept")
        heard.removeAll()
        answerer?.setAudioEnabled(true)
        waitUntil("both directions heard after accept", timeout: 10) {
            (heard.max() ?? -.infinity) > -30 && (answerer?.speakerPeakWhileEnabled ?? -.infinity) > -30
        }
        XCTAssertGreaterThan(heard.max() ?? -.infinity, -30, "the door hears the resident after accept")
        XCTAssertGreaterThan(answerer?.speakerPeakWhileEnabled ?? -.infinity, -30)
        XCTAssertLessThan(answerer?.speakerPeakWhileGated ?? -.infinity, -60)
        answerer?.stop()
        door.stop()
    }

    func testVP8LoopbackCall() throws { try loopbackCall(codec: .vp8) }
    func testH264LoopbackCall() throws { try loopbackCall(codec: .h264) }
}
