@testable import C1nkDoor
@testable import C1nkGLib
@testable import C1nkMedia
import XCTest

/// The first keyframe is asked for when the door's first video packet
/// reaches its jitterbuffer, not once the jitterbuffer releases it (when
/// webrtcbin's video pad appears, one latency later): the door's keyframe
/// is on its way while the jitterbuffer waits. One request, not two.
final class FirstKeyframeTests: XCTestCase {
    func testH264KeyframeIsAskedAtTheFirstPacket() throws {
        var doorOptions = DoorMediaSession.Options()
        doorOptions.codec = .h264
        doorOptions.ice = .loopback
        doorOptions.keyframeDistance = 600 // the next scheduled keyframe 20 s away
        doorOptions.width = 320
        doorOptions.height = 240
        let door = try DoorMediaSession(options: doorOptions)
        var configuration = MediaSessionTests.testConfiguration()
        // Room for the request's trip through the main context on a busy machine.
        configuration.latencyMilliseconds = 200
        var answerer: AnswerSession?
        var firstFrame = false
        door.onOffer = { offer in
            answerer = try? AnswerSession(callId: "k", offer: offer, configuration: configuration, audioEnabled: false)
            answerer?.onAnswer = { door.applyAnswer($0) }
            answerer?.onLocalCandidate = { door.addRemoteCandidate($0) }
            answerer?.onFirstFrame = { firstFrame = true }
            answerer?.onFailure = { XCTFail($0) }
        }
        door.onLocalCandidate = { answerer?.addRemoteCandidate($0) }
        door.onFailure = { XCTFail("door: \($0)") }
        defer { answerer?.stop(); door.stop() }
        waitUntil("the first frame (the door's next scheduled keyframe is 20 s away)", timeout: 10) { firstFrame }
        XCTAssertEqual(answerer?.keyframeAskedAtFirstPacket, true, "the request left before webrtcbin's video pad appeared")
        XCTAssertEqual(answerer?.keyframeRequests, 1, "one request, at the first packet")
    }
}
