import XCTest
@testable import C1nkPipeline

/// A description's placeholders, its errors (file, line, element) and its
/// privacy gates, built but never run.
final class PipelineDescriptionTests: XCTestCase {
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

    /// A path holds anything (a quote, `!`, a newline, a placeholder's braces): it is set as
    /// the filesink's property, never parsed; and a value is never read as a placeholder again.
    func testPathsAreSetAsPropertiesAndPlaceholdersAreFilledOnce() throws {
        let text = """
            identity name=video-in ! matroskamux ! filesink name=file location={record-location}
            """
        let description = try PipelineDescription(name: "mine", path: "mine.pipeline", text: text)
        for path in ["/tmp/x\" location=\"c1nk-pwned.mkv", "/tmp/a ! fakesink.mkv", "/tmp/a%n%s%Y{sink}.mkv", "/tmp/line\nbreak.mkv"] {
            let pipeline = try description.makePipeline(["record-location": path, "sink": "fakesink"])
            XCTAssertEqual(pipeline.element(named: "file")?[string: "location"], path, "the exact path, as a property")
            XCTAssertEqual(pipeline.elements.count, 3, "nothing added by the path's text")
        }
        let partial = try PipelineDescription(name: "mine", path: "mine.pipeline",
                                              text: "identity name=video-in ! matroskamux ! filesink location={record-location}.part")
        XCTAssertThrowsError(try partial.makePipeline(["record-location": "/tmp/a.mkv"])) { error in
            XCTAssertTrue("\(error)".contains("{record-location} is a path: give it as a whole location value"), "\(error)")
        }
        XCTAssertEqual(Placeholders.fill("{a} {b} {c}", ["a": "{b}", "b": "B", "c": "{a}{"]), "{b} B {a}{", "one pass")
        XCTAssertEqual(Placeholders.fill("x{ {a}} {missing} {a", ["a": "A"]), "x{ A} {missing} {a")
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
}
