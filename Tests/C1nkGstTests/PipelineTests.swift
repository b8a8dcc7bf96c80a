import Foundation
import XCTest
@testable import C1nkDoor
@testable import C1nkGLib
@testable import C1nkMedia
@testable import C1nkPipeline

/// Pipelines as text and recording, in real loopback calls.
final class PipelineTests: XCTestCase {
    /// One auto-answered call of `seconds` with the pipeline `name`; returns
    /// the harness (stopped) and the call's media time (media-connected → ended).
    @discardableResult
    func call(pipeline name: String, record: String? = nil, codec: DoorMediaSession.VideoCodec = .vp8,
              seconds: Double = 3, calls: Int = 1) throws -> (harness: CallHarness, mediaSeconds: Double) {
        let pipeline = try PipelineDescription.load(name)
        let recording = try record.map { try RecordingTarget($0) }
        let harness = try CallHarness(codec: codec) { options in
            options.answerMode = .auto
            options.openDoorAfter = 0.5
            options.hangupAfter = seconds
            options.media.pipeline = pipeline
            options.media.recording = recording
        }
        var mediaSeconds = 0.0
        for index in 1...calls {
            harness.door.ring()
            waitUntil("call \(index) of \(name) to end", timeout: seconds + 15) { harness.count("ended") == index }
            if let connected = harness.answerer.lastCall.mediaConnectedAt {
                mediaSeconds = MainContext.monotonicSeconds() - connected
            }
            if record != nil {
                waitUntil("the recording of call \(index) to be finalised", timeout: 5) { harness.count("recorded") == index }
            }
        }
        harness.stop()
        return (harness, mediaSeconds)
    }

    /// The file holds the door's video as received and Opus audio, lasts as
    /// long as the call (within 10 %), and its frames decode.
    func assertRecording(_ path: String, video: String, lasting seconds: Double,
                         file: StaticString = #filePath, line: UInt = #line) throws {
        let media = try MediaFile(path)
        XCTAssertTrue(media.videoCaps?.hasPrefix(video) ?? false, "\(media.videoCaps ?? "no video")", file: file, line: line)
        XCTAssertTrue(media.audioCaps?.hasPrefix("audio/x-opus") ?? false, "\(media.audioCaps ?? "no audio")", file: file, line: line)
        XCTAssertEqual(media.duration, seconds, accuracy: seconds * 0.1, "duration of the file vs the call", file: file, line: line)
        XCTAssertGreaterThan(media.decodedFrames, Int(seconds * 20), "frames decode", file: file, line: line)
    }

    func recordedPaths(_ harness: CallHarness) -> [String] {
        harness.events.written.filter { $0["event"] as? String == "recorded" }.compactMap { $0["path"] as? String }
    }

    func testRecordsVP8CallToMatroska() throws {
        let directory = temporaryDirectory()
        let (harness, seconds) = try call(pipeline: "display-record", record: directory + "/door-{callId}.mkv")
        let path = try XCTUnwrap(recordedPaths(harness).first)
        XCTAssertEqual(path, directory + "/door-\(harness.answerer.lastCall.callId).mkv")
        try assertRecording(path, video: "video/x-vp8", lasting: seconds)
        XCTAssertGreaterThan(harness.answerer.lastCall.framesRendered, 40, "display went on while recording")
    }

    func testRecordsH264CallToMP4WithoutDecoding() throws {
        let directory = temporaryDirectory()
        let (harness, seconds) = try call(pipeline: "record", record: directory + "/door.mp4", codec: .h264)
        let path = try XCTUnwrap(recordedPaths(harness).first)
        XCTAssertEqual(path, directory + "/door.mp4")
        try assertRecording(path, video: "video/x-h264", lasting: seconds)
    }

    func testCallIdGivesOneFilePerCallAndNothingIsOverwritten() throws {
        let directory = temporaryDirectory()
        try Data("keep me".utf8).write(to: URL(fileURLWithPath: directory + "/fixed.mkv"))
        let (harness, _) = try call(pipeline: "record", record: directory + "/call-{callId}.mkv", seconds: 1.5, calls: 2)
        let paths = recordedPaths(harness)
        XCTAssertEqual(paths.count, 2)
        XCTAssertEqual(Set(paths).count, 2, "one file per call")
        for path in paths { XCTAssertGreaterThan(try MediaFile(path).decodedFrames, 10) }

        let (second, _) = try call(pipeline: "record", record: directory + "/fixed.mkv", seconds: 1.5)
        XCTAssertEqual(recordedPaths(second), [directory + "/fixed-1.mkv"])
        XCTAssertEqual(try String(contentsOfFile: directory + "/fixed.mkv", encoding: .utf8), "keep me")
    }

    func testVP8AskedForMP4IsRecordedToMatroska() throws {
        let directory = temporaryDirectory()
        let (harness, _) = try call(pipeline: "record", record: directory + "/door.mp4", seconds: 1.5)
        let path = try XCTUnwrap(recordedPaths(harness).first)
        XCTAssertEqual(path, directory + "/door.mkv")
        XCTAssertTrue(try MediaFile(path).videoCaps?.hasPrefix("video/x-vp8") ?? false)
    }

    func testEveryShippedPipelineRunsInACall() throws {
        let names = PipelineDescription.shippedNames()
        XCTAssertEqual(Set(names), ["audio", "display", "display-record", "record"])
        for name in names {
            let directory = temporaryDirectory()
            let records = try PipelineDescription.load(name).uses("record-location")
            let (harness, _) = try call(pipeline: name, record: records ? directory + "/call.mkv" : nil, seconds: 1.5)
            XCTAssertEqual(harness.lastEvent("ended")?["reason"] as? String, "hangup", name)
            XCTAssertTrue(harness.door.doorOpened, name)
            if name.hasPrefix("display") || name == "record" {
                XCTAssertGreaterThan(harness.answerer.lastCall.framesRendered, 15, "\(name): video frames")
            }
            if name == "display" || name == "audio" || name == "display-record" {
                let accepted = try XCTUnwrap(harness.door.acceptedAt, name)
                XCTAssertGreaterThan(harness.door.loudestHeard(since: accepted + 0.3), -30, "\(name): the door hears the resident")
            }
            if records {
                let path = try XCTUnwrap(recordedPaths(harness).first, name)
                XCTAssertGreaterThan(try MediaFile(path).decodedFrames, 10, "\(name): the recording decodes")
            }
        }
    }

    func testAFailingRecordingEndsTheRecordingNotTheCall() throws {
        // A full disk: the recording's path is a link to /dev/full.
        let directory = temporaryDirectory()
        let path = directory + "/full.mkv"
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: "/dev/full")
        let harness = try CallHarness { options in
            options.answerMode = .auto
            options.hangupAfter = 4
            options.media.pipeline = try! PipelineDescription.load("display-record")
            options.media.recording = try! RecordingTarget(path)
        }
        defer { harness.stop() }
        harness.door.ring()
        waitUntil("the recording to fail", timeout: 10) { harness.count("recorded") == 1 }
        let recorded = try XCTUnwrap(harness.lastEvent("recorded"))
        XCTAssertEqual(recorded["path"] as? String, path)
        let error = try XCTUnwrap(recorded["error"] as? String)
        XCTAssertTrue(error.contains("space") || error.contains("writing"), error)
        XCTAssertEqual(harness.count("ended"), 0, "the call goes on")
        let session = try XCTUnwrap(harness.answerer.currentSession)
        let framesAtFailure = session.framesRendered
        waitUntil("video keeps playing", timeout: 10) { session.framesRendered > framesAtFailure + 15 }
        waitUntil("the call to end", timeout: 10) { harness.count("ended") == 1 }
        XCTAssertEqual(harness.lastEvent("ended")?["reason"] as? String, "hangup")
        XCTAssertEqual(harness.count("recorded"), 1, "one recorded event for the call")
        XCTAssertEqual(harness.count("error"), 0)
    }

    func testRecordingTargetExpandsTimeAndChecksTheExtension() throws {
        let target = try RecordingTarget("/tmp/door-%Y-{callId}")
        XCTAssertEqual(target.container, .matroska)
        let year = Calendar.current.component(.year, from: Date())
        XCTAssertEqual(target.file(callId: "abc", videoCodec: "VP8") { _ in }.path, "/tmp/door-\(year)-abc.mkv")
        XCTAssertThrowsError(try RecordingTarget("/tmp/door.avi"))
        XCTAssertThrowsError(try RecordingTarget("/no/such/folder/door.mkv"))
    }

    /// Whatever a callId holds, a recording and a snapshot stay in their folders, under a
    /// name from a fixed alphabet, and `%` or `{callId}` in the id is never expanded.
    func testACallIdNeverLeavesItsFolderNorExpandsAgain() throws {
        let directory = temporaryDirectory()
        for folder in ["rec", "snap"] { try FileManager.default.createDirectory(atPath: "\(directory)/\(folder)", withIntermediateDirectories: true) }
        let record = try RecordingTarget("\(directory)/rec/%Y-{callId}.mkv")
        let snapshot = try SnapshotTarget("\(directory)/snap/{callId}.jpg")
        let year = Calendar.current.component(.year, from: Date())
        let expected = ["../../c1nk-escape1": "_._.._c1nk-escape1", "x\" location=\"c1nk-pwned": "x__location__c1nk-pwned",
                        "a%n%s%Y{callId}": "a_n_s_Y_callId_", "call\n1\u{0}": "call_1_", "é": "__", "": "_", "..": "_.",
                        String(repeating: "a", count: 4096): String(repeating: "a", count: 64)]
        for (callId, name) in expected {
            let path = record.file(callId: callId, videoCodec: "VP8") { _ in }.path
            XCTAssertEqual(path, "\(directory)/rec/\(year)-\(name).mkv")
            XCTAssertEqual(snapshot.file(callId: callId, recordingPath: path), "\(directory)/snap/\(name).jpg")
        }
    }
}
