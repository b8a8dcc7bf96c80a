import Foundation
import XCTest
@testable import C1nkDoor
@testable import C1nkGLib
@testable import C1nkLocal
@testable import C1nkMedia

/// The door's last video codec, kept beside the device id: a new process
/// warms that decoder before the first ring, and only that one.
final class VideoCodecMemoryTests: XCTestCase {
    /// What a file may hold: a codec name we know, a few bytes; anything else is ignored.
    func testTheFileIsReadAsDataAndWrittenOwnerOnly() throws {
        Log.echoToStandardError = false
        defer { Log.echoToStandardError = true }
        let directory = temporaryDirectory()
        let memory = VideoCodecMemory(besideDeviceIdFile: directory + "/device-id")
        XCTAssertEqual(memory.path, directory + "/last-video-codec")
        XCTAssertNil(VideoCodecMemory.read(memory.path), "no file: nothing remembered")
        for bad in ["AV1\n", "h264; rm -rf /\n", String(repeating: "H264", count: 100), "../../etc/passwd"] {
            try bad.write(toFile: memory.path, atomically: true, encoding: .utf8)
            XCTAssertNil(VideoCodecMemory.read(memory.path), bad)
        }
        try "H264\n".write(toFile: memory.path, atomically: true, encoding: .utf8)
        XCTAssertEqual(VideoCodecMemory.read(memory.path), "H264")

        VideoCodecMemory.write("VP8", to: memory.path)
        XCTAssertEqual(VideoCodecMemory.read(memory.path), "VP8")
        let mode = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: memory.path)[.posixPermissions] as? Int)
        XCTAssertEqual(mode & 0o777, 0o600)
        XCTAssertFalse(FileManager.default.fileExists(atPath: memory.path + ".new"))
    }

    /// An H.264 call is remembered; the next process maps libav's decoder
    /// before any ring. A process whose door was VP8 does not map it.
    func testTheNextProcessWarmsTheDecoderOfTheLastCallOnly() throws {
        Log.echoToStandardError = false
        defer { Log.echoToStandardError = true }
        let (server, door) = try AnswerCommandTests.serverAndDoor(configure: { $0.media.codec = .h264 }) { _ in }
        defer { door.stop(); server.stop() }
        let h264Home = temporaryDirectory()
        let first = try answerer(server, h264Home, extra: ["--answer", "auto", "--hangup-after", "1", "--exit-after-calls", "1"])
        waitUntil("the first answerer registered") { door.isReady && server.connectedAppIds.count == 1 }
        door.ring()
        XCTAssertEqual(first.wait(timeout: 30), 0, first.stderr)
        XCTAssertEqual(VideoCodecMemory.read(h264Home + "/last-video-codec"), "H264", first.stderr)

        let next = try answerer(server, h264Home)
        defer { next.signal(SIGTERM); _ = next.wait() }
        waitUntil("the next process warmed H.264's decoder", timeout: 15) { next.stderr.contains("last video codec was H264") }
        XCTAssertTrue(next.maps.contains("libavcodec"), "libav's decoder mapped before any ring")

        let vp8Home = temporaryDirectory()
        VideoCodecMemory.write("VP8", to: vp8Home + "/last-video-codec")
        let vp8 = try answerer(server, vp8Home)
        defer { vp8.signal(SIGTERM); _ = vp8.wait() }
        waitUntil("the VP8 home read its memory", timeout: 15) { vp8.stderr.contains("last video codec was VP8") }
        XCTAssertFalse(vp8.maps.contains("libavcodec"), "a VP8 home does not map libav")
    }

    private func answerer(_ server: SignalServer, _ home: String, extra: [String] = []) throws -> AnswerCommandTests.Command {
        try AnswerCommandTests.Command("c1nk-gst-answer", [
            "--server", server.url, "--device-id-file", home + "/device-id", "--stun", "none", "--ice-local-ip", "127.0.0.1",
            "--sink", "fakesink", "--audio-sink", "fakesink", "--audio-source", "audiotestsrc is-live=true", "--ringtone", "none"] + extra,
            environment: ["GST_DEBUG": "c1nk-media:4", "GST_DEBUG_NO_COLOR": "1"])
    }
}
