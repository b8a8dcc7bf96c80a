import CGStreamer
import XCTest
@testable import C1nkDoor
@testable import C1nkGLib
@testable import C1nkMedia
@testable import C1nkViewers
@testable import C1nkPipeline

/// The web page's talk input mixed into the call's microphone (`WebTalk`):
/// the wall's own microphone reaches the door whether or not a browser talks.
final class WebTalkTests: XCTestCase {
    override func setUp() { Log.echoToStandardError = false }
    override func tearDown() { Log.echoToStandardError = true }

    /// The page on: nothing before the accept; then the wall's 660 Hz alone
    /// (nobody on the page), the wall and a talker's 3 kHz together (pushed
    /// as a viewer pushes its browser's voice, through `TalkRoute`), and the
    /// wall alone again once the talker stops.
    func testTheWallMicrophoneReachesTheDoorWithOrWithoutATalker() throws {
        var configuration = MediaSessionTests.testConfiguration()
        configuration.audioSource = WebTalk.audioSource(wrapping: configuration.audioSource)
        var door = DoorMediaSession.Options()
        door.analyseBands = true
        let call = try AudioLoopback(door: door, configuration: configuration)
        defer { call.stop() }
        call.waitForVideo()
        XCTAssertEqual(call.failures, [])
        let session = try XCTUnwrap(call.session)
        let tap = CallTap(session: session)
        defer { tap.stop() }
        XCTAssertNotNil(tap.talkInput, "the call has the page's talk input")
        XCTAssertLessThan(call.loudestHeard(since: 0), -60, "nothing heard at the door before accept")

        let accepted = MainContext.monotonicSeconds()
        session.setAudioEnabled(true)
        waitUntil("the door hears the wall's microphone, nobody talking on the page") {
            call.meanBand("door", since: accepted + 0.3) > -35
        }

        let talker = try Self.talker()
        defer { _ = talker.pipeline.setState(GST_STATE_NULL) }
        talker.route.set(tap.talkInput)
        let talking = MainContext.monotonicSeconds()
        waitUntil("the door hears the talker") { call.meanBand("resident", since: talking + 0.3) > -40 }
        let both = MainContext.monotonicSeconds()
        waitUntil("half a second of both") { (call.bands.last?.time ?? 0) > both + 0.5 }
        XCTAssertGreaterThan(call.meanBand("door", since: both), -35, "the wall's microphone goes on while a browser talks")
        XCTAssertGreaterThan(call.meanBand("resident", since: both), -40)

        talker.route.set(nil)
        let stopped = MainContext.monotonicSeconds()
        waitUntil("the talker's band falls silent") { call.meanBand("resident", since: stopped + 0.3) < -60 }
        let after = MainContext.monotonicSeconds()
        waitUntil("half a second after the talker") { (call.bands.last?.time ?? 0) > after + 0.5 }
        XCTAssertGreaterThan(call.meanBand("door", since: after), -35, "the wall's microphone goes on after the talker stopped")
        XCTAssertEqual(call.failures, [])
    }

    /// A browser's decoded voice as a viewer hands it on: a live 3 kHz tone in
    /// the talk input's format, each buffer given to a `TalkRoute`.
    static func talker() throws -> (pipeline: Pipeline, route: TalkRoute) {
        let pipeline = Pipeline(retaining: try XCTUnwrap(gst_parse_launch(
            "audiotestsrc is-live=true freq=3000 volume=0.5 samplesperbuffer=960 ! capsfilter caps=\"\(WebTalk.rawCaps)\" ! fakesink name=voice", nil)))
        let route = TalkRoute()
        try XCTUnwrap(pipeline.element(named: "voice")?.staticPad("sink")).addProbe(GST_PAD_PROBE_TYPE_BUFFER) { info in
            if let buffer = info.pointee.data?.assumingMemoryBound(to: GstBuffer.self) { route.push(buffer) }
            return GST_PAD_PROBE_OK
        }
        XCTAssertTrue(pipeline.setState(GST_STATE_PLAYING))
        return (pipeline, route)
    }
}

/// The door's voice to the web page's viewers (`CallTap`): silence until
/// the call is accepted, then the door's tone. A viewer's appsrc is stood
/// in for by a pipeline that decodes what the tap pushes to it.
final class CallTapAudioGateTests: XCTestCase {
    override func setUp() { Log.echoToStandardError = false }
    override func tearDown() { Log.echoToStandardError = true }

    func testAViewerHearsSilenceBeforeAcceptAndTheDoorAfter() throws {
        let call = try AudioLoopback()
        defer { call.stop() }
        call.waitForVideo()
        let session = try XCTUnwrap(call.session)
        let tap = CallTap(session: session)
        defer { tap.stop() }
        XCTAssertFalse(tap.isAudioOpen, "ringing: the door's voice is held back")
        waitUntil("the door's audio flows to the tap") { tap.caps(for: "audio") != nil }
        let caps = try XCTUnwrap(tap.caps(for: "audio"))
        var levels: [(time: Double, level: Double)] = []
        let viewer = Pipeline(retaining: try XCTUnwrap(gst_parse_launch(
            "appsrc name=audio-src is-live=true format=time do-timestamp=true block=false caps=\"\(caps)\" ! rtpopusdepay ! opusdec plc=true "
                + "! audioconvert ! level name=heard interval=50000000 post-messages=true ! fakesink sync=false", nil)))
        defer { _ = viewer.setState(GST_STATE_NULL) }
        let watch = BusWatch(viewer.pointer) { message in
            if let level = AudioLevel.rms(from: message) { levels.append((MainContext.monotonicSeconds(), level)) }
        }
        defer { watch.remove() }
        XCTAssertTrue(viewer.setState(GST_STATE_PLAYING))
        tap.add("viewer", media: "audio", source: try XCTUnwrap(viewer.element(named: "audio-src")))

        let start = MainContext.monotonicSeconds()
        waitUntil("a second of the viewer's audio before accept") { (levels.last?.time ?? 0) > start + 1 }
        XCTAssertGreaterThan(levels.count, 10, "the viewer's stream runs before accept")
        XCTAssertLessThan(levels.map(\.level).max() ?? -.infinity, -60, "before accept the viewer hears silence")

        session.setAudioEnabled(true)
        tap.setAudioOpen(true)
        let accepted = MainContext.monotonicSeconds()
        waitUntil("the viewer hears the door after accept") {
            (levels.filter { $0.time > accepted }.map(\.level).max() ?? -.infinity) > -30
        }
    }
}
