import Foundation
import XCTest
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

    func testPlaceholderSyntaxAndErrorsNameFileLineAndElement() throws {
        func error(_ text: String, values: [String: String] = [:], recording: Bool = false) -> String {
            do {
                let description = try PipelineDescription(name: "mine", path: "mine.pipeline", text: text)
                var all = ["sink": "fakesink", "audio-source": "audiotestsrc", "audio-sink": "fakesink"]
                all.merge(values) { $1 }
                try description.validate(all, recording: recording)
                return "no error"
            } catch {
                return "\(error)"
            }
        }
        let good = "identity name=video-in ! decodebin ! videoconvert ! identity name=video-out ! {sink}"
        XCTAssertEqual(error(good), "no error")
        XCTAssertEqual(error("# comment\n" + good.replacingOccurrences(of: "videoconvert", with: "videoconvertt")),
                       "mine.pipeline:2: element 'videoconvertt': no element \"videoconvertt\": not a GStreamer element, or its plugin is not installed")
        XCTAssertTrue(error("identity name=video-in ! glimagesink").contains("install the Debian package gstreamer1.0-gl"))
        XCTAssertTrue(error("identity name=video-in\n  ! videoconvert frobnicate=3 ! fakesink").hasPrefix("mine.pipeline:2: element 'videoconvert': no property \"frobnicate\""),
                      error("identity name=video-in\n  ! videoconvert frobnicate=3 ! fakesink"))
        XCTAssertTrue(error("identity name=video-in ! fakesink\naudiotestsrc ! videoconvert ! fakesink")
            .hasPrefix("mine.pipeline:2: element 'audiotestsrc': audiotestsrc cannot link to videoconvert"),
                      error("identity name=video-in ! fakesink\naudiotestsrc ! videoconvert ! fakesink"))
        XCTAssertEqual(error("identity name=video-in ! {screen}"),
                       "mine.pipeline:1: unknown placeholder {screen}; known: {sink} {audio-source} {audio-sink} {record-location} {audio-encoder} {video-depay} {video-decoder} {audio-depay} {record-muxer}")
        XCTAssertEqual(error("identity name=video-in ! fakesink"),
                       "no error")
        XCTAssertTrue(error("identity name=video-in ! fakesink", recording: true).contains("does not record"))
        XCTAssertTrue(error("identity name=video-in ! matroskamux ! filesink location={record-location}").contains("give --record PATH"))
        XCTAssertTrue(error("fakesrc ! fakesink").contains("nothing takes the door's media"))
        XCTAssertTrue(error("identity name=audio-in ! fakesink\naudiotestsrc ! identity name=audio-out").contains("'microphone'"))
        XCTAssertTrue(error("identity name=audio-in ! {audio-sink}").contains("'speaker'"))
    }

    func testPrivacyGatesCannotBeBypassed() throws {
        func error(_ text: String) -> String {
            do {
                let description = try PipelineDescription(name: "mine", path: "mine.pipeline", text: text)
                try description.validate(["sink": "fakesink", "audio-source": "audiotestsrc", "audio-sink": "fakesink"],
                                         recording: false)
                return "no error"
            } catch {
                return "\(error)"
            }
        }
        let video = "identity name=video-in ! fakesink\n"
        let gatedMicrophone = "{audio-source} ! volume name=microphone mute=true ! audioconvert ! {audio-encoder} ! identity name=audio-out\n"
        // Door audio around the speaker gate, to {audio-sink} through a tee.
        XCTAssertEqual(error(video + "identity name=audio-in ! decodebin ! audioconvert ! tee name=t\n"
                             + "t. ! queue ! volume name=speaker mute=true ! fakesink\n"
                             + "t. ! queue ! {audio-sink}\n"),
                       "mine.pipeline:4: element '{audio-sink}': the door's audio reaches this sink without passing the volume named 'speaker' (the gate that keeps it silent until you accept); put the sink after the speaker gate")
        // Hard-coded sink with no speaker gate at all, after decodebin (linked only once media flows).
        XCTAssertTrue(error(video + "identity name=audio-in ! decodebin ! audioconvert\n  ! autoaudiosink")
            .hasPrefix("mine.pipeline:3: element 'autoaudiosink': the door's audio reaches this sink"))
        // A hard-coded sink after the gate is fine; so is a gated {audio-sink}.
        XCTAssertEqual(error(video + "identity name=audio-in ! decodebin ! audioconvert ! volume name=speaker mute=true ! autoaudiosink"),
                       "no error")
        XCTAssertEqual(error(video + gatedMicrophone), "no error")
        // A microphone reaching the door around its gate: a second source, or a tee.
        let aroundTheGate = video + gatedMicrophone + "audiotestsrc ! audioconvert ! identity name=unused\n"
            + "audiotestsrc ! queue ! mux.\nmatroskamux name=mux ! fakesink"
        XCTAssertTrue(error(aroundTheGate)
            .hasPrefix("mine.pipeline:4: element 'audiotestsrc': this microphone reaches the sink fakesink without passing"),
                      error(aroundTheGate))
        XCTAssertTrue(error(video + "{audio-source} ! tee name=m\nm. ! queue ! volume name=microphone mute=true ! fakesink\n"
                            + "m. ! queue ! audioconvert ! {audio-encoder} ! identity name=audio-out")
            .hasPrefix("mine.pipeline:2: element '{audio-source}': this microphone reaches the door (audio-out) without passing"))
        // Every shipped pipeline and example keeps its gates.
        for name in PipelineDescription.shippedNames() {
            let description = try PipelineDescription.load(name)
            XCTAssertNoThrow(try description.checkPrivacyGates(), name)
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
}
