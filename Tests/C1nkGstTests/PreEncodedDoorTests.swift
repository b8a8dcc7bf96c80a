import XCTest
@testable import C1nkDoor
@testable import C1nkGLib
@testable import C1nkMedia
import CGStreamer

/// The pre-encoded door (`DoorMediaSession.Options.preEncoded`): a real call
/// whose frames decode at the answerer, from a door whose pipeline holds no
/// encoder (the clip is encoded once per process, not per frame or per call).
final class PreEncodedDoorTests: XCTestCase {
    func testVP8PreEncodedCallDecodesAtTheAnswerer() throws { try preEncodedCall(.vp8) }
    func testH264PreEncodedCallDecodesAtTheAnswerer() throws { try preEncodedCall(.h264) }

    func preEncodedCall(_ codec: DoorMediaSession.VideoCodec) throws {
        let encodingsBefore = PreEncodedClip.encodings.load(ordering: .relaxed)
        let harness = try CallHarness(codec: codec, door: { $0.preEncoded = true }) { options in
            options.answerMode = .auto
            options.hangupAfter = 2
        }
        defer { harness.stop() }
        harness.door.ring()
        waitUntil("the call to end", timeout: 15) { harness.answerer.endedCalls == 1 }
        // The test configuration's display pipeline decodes: these are decoded frames.
        XCTAssertGreaterThan(harness.answerer.lastCall.framesRendered, 36, "\(codec) frames decoded")
        XCTAssertEqual(harness.lastEvent("ended")?["reason"] as? String, "hangup")
        // The door made a session at connect and another after the call: one
        // camera clip and one voice clip for both (none if an earlier test made them).
        waitUntil("the door's next session") { harness.doorEvents.contains { if case .callEnded = $0 { return true } else { return false } } }
        XCTAssertLessThanOrEqual(PreEncodedClip.encodings.load(ordering: .relaxed) - encodingsBefore, 2)
    }

    func testPreEncodedCameraHoldsNoEncoderAndLoopsFromAKeyframe() throws {
        for codec in [DoorMediaSession.VideoCodec.vp8, .h264] {
            var options = DoorMediaSession.Options()
            options.codec = codec
            options.preEncoded = true
            let camera = try DoorMediaSession.camera(options)
            let factories = camera.elements.compactMap(\.factoryName)
            XCTAssertTrue(factories.contains("appsrc"), "\(factories)")
            XCTAssertFalse(factories.contains { $0.hasSuffix("enc") }, "no encoder in the door's camera: \(factories)")

            let clip = try PreEncodedClip.shared(
                "videotestsrc num-buffers=\(options.framerate * PreEncodedCamera.clipSeconds) pattern=smpte"
                + " ! video/x-raw,format=I420,width=640,height=480,framerate=30/1 ! textoverlay text=\"Hlavný vchod\" valignment=top halignment=left font-desc=\"Sans 24\" ! videoconvert ! "
                + PreEncodedCamera.split(DoorMediaSession.encoder(options)).encoding,
                frameDuration: 1_000_000_000 / 30)
            XCTAssertEqual(clip.frames.count, 120)
            XCTAssertTrue(clip.isKeyframe[0], "the loop starts at a keyframe")
            XCTAssertEqual(clip.keyframe(atOrAfter: 1), 60, "keyframes as the live camera's: every 60 frames")
            XCTAssertEqual(clip.keyframe(atOrAfter: 61), 0, "after the last keyframe: the loop's start")
        }
        let voice = try XCTUnwrap(PreEncodedVoice.make({ var options = DoorMediaSession.Options(); options.preEncoded = true; return options }()))
        let voiceFactories = voice.elements.compactMap(\.factoryName)
        XCTAssertFalse(voiceFactories.contains { $0.hasSuffix("enc") }, "no encoder in the door's voice: \(voiceFactories)")
    }
}
