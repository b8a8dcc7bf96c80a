import Foundation
import XCTest
@testable import C1nkDoor
@testable import C1nkGLib
@testable import C1nkLocal
@testable import C1nkMedia

/// `--pipeline` and `--record` through the real command.
final class RecordCommandTests: XCTestCase {
    typealias Command = AnswerCommandTests.Command

    /// A local server and a simulated door in this process, and the answerer
    /// as a separate process recording into `directory`.
    func recordingCall(_ extra: [String], codec: DoorMediaSession.VideoCodec = .vp8,
                       until condition: (String) -> Bool, signal: Int32) throws -> (status: Int32?, events: String, directory: String) {
        Log.echoToStandardError = false
        defer { Log.echoToStandardError = true }
        let server = try SignalServer()
        var doorOptions = SimulatedDoor.Options(serverURL: server.url)
        doorOptions.media.ice = .loopback
        doorOptions.media.codec = codec
        let door = try SimulatedDoor(doorOptions)
        door.start()
        defer { door.stop() }
        let directory = temporaryDirectory()
        let events = directory + "/events.jsonl"
        let command = try Command("c1nk-gst-answer", [
            "--server", server.url, "--events", events, "--device-id-file", directory + "/id",
            "--answer", "auto", "--stun", "none", "--ice-local-ip", "127.0.0.1", "--ringtone", "none",
            "--audio-source", "audiotestsrc is-live=true", "--audio-sink", "fakesink", "--sink", "fakesink"] + extra
            .map { $0.replacingOccurrences(of: "DIR", with: directory) })
        waitUntil("answerer connected") { door.isReady && server.connectedAppIds.count == 1 }
        door.ring()
        waitUntil("the call to be far enough", timeout: 15) { condition(events) }
        command.signal(signal)
        let status = command.wait()
        return (status, (try? String(contentsOfFile: events, encoding: .utf8)) ?? "", directory)
    }

    static func seconds(ofMediaIn events: String) -> Bool {
        AnswerCommandTests.names(AnswerCommandTests.events(in: events)).contains("first-frame")
    }

    func testSIGINTMidCallLeavesAFinalisedFile() throws {
        // Counted from the first frame: start-up time on a loaded machine is no media.
        var firstFrameAt: Double?
        let result = try recordingCall(["--record", "DIR/door.mkv"], until: { events in
            if firstFrameAt == nil, Self.seconds(ofMediaIn: events) { firstFrameAt = MainContext.monotonicSeconds() }
            return firstFrameAt.map { MainContext.monotonicSeconds() - $0 > 2.5 } ?? false
        }, signal: SIGINT)
        XCTAssertEqual(result.status, 0)
        XCTAssertTrue(result.events.contains("\"recorded\""), result.events)
        let file = try MediaFile(result.directory + "/door.mkv")
        XCTAssertGreaterThan(file.duration, 1, "a duration was written")
        XCTAssertGreaterThan(file.decodedFrames, 30)
        XCTAssertTrue(file.videoCaps?.hasPrefix("video/x-vp8") ?? false)
    }

    func testSIGKILLMidCallLeavesAFileThatStillDecodes() throws {
        for (ext, codec) in [("mkv", DoorMediaSession.VideoCodec.vp8), ("mp4", .h264)] {
            var firstFrameAt: Double?
            let result = try recordingCall(["--record", "DIR/door.\(ext)"], codec: codec, until: { events in
                if firstFrameAt == nil, Self.seconds(ofMediaIn: events) { firstFrameAt = MainContext.monotonicSeconds() }
                return firstFrameAt.map { MainContext.monotonicSeconds() - $0 > 4 } ?? false
            }, signal: SIGKILL)
            XCTAssertEqual(result.status, 9, "killed")
            let file = try MediaFile(result.directory + "/door.\(ext)")
            XCTAssertGreaterThan(file.decodedFrames, 60, "\(ext): the first seconds decode; events: \(result.events.split(separator: "\n").filter { $0.contains("record") || $0.contains("error") })")
        }
    }

    func testBadPipelinesAndRecordPathsExitTwoWithAMessage() throws {
        let directory = temporaryDirectory()
        try "identity name=video-in ! videoconvert ! {sink}\nidentity name=audio-in ! opusdec ! nosuchelement ! fakesink\n"
            .write(toFile: directory + "/mine.pipeline", atomically: true, encoding: .utf8)
        let server = ["--server", "ws://127.0.0.1:1/ws"]
        let cases: [([String], String)] = [
            (["--pipeline", directory + "/mine.pipeline"], "mine.pipeline:2: element 'nosuchelement'"),
            (["--pipeline", "teleport"], "no shipped pipeline of that name; choose one of audio, display, display-record, record"),
            (["--pipeline", directory + "/missing.pipeline"], "cannot read the file"),
            (["--pipeline", "display", "--record", directory + "/x.mkv"], "does not record"),
            (["--pipeline", "record"], "give --record PATH"),
            (["--pipeline", "record", "--record", directory + "/x.mkv", "--sink", "fakesink"], "--sink has no effect"),
            (["--record", directory + "/x.avi"], "--record takes a .mkv or .mp4 path"),
            (["--record", "/no/such/folder/x.mkv"], "does not exist"),
        ]
        for (arguments, message) in cases {
            let command = try Command("c1nk-gst-answer", server + arguments)
            XCTAssertEqual(command.wait(), 2, "\(arguments)")
            XCTAssertTrue(command.stderr.contains(message), "\(arguments): \(command.stderr)")
        }
    }
}
