import C1nkSpeaker
import CGStreamer
import XCTest
@testable import C1nkGLib
@testable import C1nkMedia
@testable import C1nkProbes

/// One owner of the speaker: the ringtone, the display's sounds and the
/// call's audio share one sink, and the microphone opens only at accept.
/// The speakers made here take a `ManualClock`: they sleep only when a test
/// moves time past their idle period, and a sound leaves the mixer only when
/// it moves time past the sound's tail.
final class SpeakerOutputTests: XCTestCase {
    /// On a device that takes one writer at a time, a ring with its
    /// ringtone, a call with its audio and two sounds all play, through one
    /// opening of the device.
    func testRingtoneCallAndSoundsShareAnExclusiveSpeaker() throws {
        let device = try ExclusiveDevice()
        defer { device.stop() }
        let harness = try CallHarness { options in
            options.answerMode = .auto
            options.answerDelay = 1.5 // media flows while it rings
            options.hangupAfter = 3
            options.ringtone = Ringtone.defaultDescription
            options.media.audioSink = device.sink
        }
        defer { harness.stop() }
        let speaker = try XCTUnwrap(harness.answerer.speaker)
        XCTAssertNil(speaker.problem)
        harness.door.ring()
        waitUntil("ringing") { harness.count("ringing") == 1 }
        let rang = MainContext.monotonicSeconds()
        waitUntil("the ringtone plays") { speaker.loudest(since: rang) > -30 }
        waitUntil("media while ringing") { harness.count("media-connected") == 1 }
        XCTAssertFalse(harness.answerer.currentSession?.isMicrophoneOpen ?? true, "no microphone before accept")
        waitUntil("accepted", timeout: 15) { harness.count("accepted") == 1 }
        let accepted = MainContext.monotonicSeconds()
        waitUntil("the door's voice plays") { (harness.answerer.currentSession?.speakerPeakWhileEnabled ?? -.infinity) > -30 }
        XCTAssertTrue(harness.answerer.currentSession?.isMicrophoneOpen ?? false)
        let playing = speaker.playingCount
        speaker.play(.doorOpened)
        speaker.play(.click)
        XCTAssertEqual(speaker.playingCount, playing + 4, "each tone joins the mixer beside the call")
        // The answerer's speaker runs on the real clock: the sounds leave
        // once played (or the call ends first).
        waitUntil("the sounds play and leave", timeout: 5) { speaker.playingCount <= playing }
        XCTAssertGreaterThan(speaker.loudest(since: accepted), -30)
        waitUntil("the call to end", timeout: 15) { harness.answerer.endedCalls == 1 }
        XCTAssertEqual(harness.lastEvent("ended")?["reason"] as? String, "hangup")
        XCTAssertEqual(harness.count("error"), 0, "\(harness.answerers[0].events.written.filter { $0["event"] as? String == "error" })")
        XCTAssertNil(speaker.problem)
        XCTAssertEqual(device.connections, 1, "the device was opened once, by the speaker")
        waitUntil("the speaker sleeps after the call", timeout: 5) { speaker.isAsleep }
        XCTAssertEqual(device.connections, 1, "asleep, the speaker keeps the device")
    }

    /// A latency recalculation that finds the latency the sinks already have
    /// sends them nothing: such an event shifted the door's audio 20 ms
    /// later at the mixer mid-call, and webrtcechoprobe (GStreamer 1.22)
    /// leaks a query on each one.
    func testUnchangedLatencyIsNotSentAgain() throws {
        let speaker = try SpeakerOutput(sink: "fakesink sync=true name=ear", clock: ManualClock())
        speaker.play(.click)
        waitUntil("the speaker plays") { !speaker.levels.isEmpty }
        // The latency messages of the click joining, handled.
        MainContext.spin(0.1)
        let pad = try XCTUnwrap(speaker.pipelineForTests.element(named: "ear")?.staticPad("sink"))
        let events = FrameCounter()
        pad.addProbe(GST_PAD_PROBE_TYPE_EVENT_UPSTREAM) { info in
            if let event = gst_pad_probe_info_get_event(info), event.pointee.type == GST_EVENT_LATENCY {
                events.value.add(1, ordering: .relaxed)
            }
            return GST_PAD_PROBE_OK
        }
        for _ in 0..<3 { speaker.recalculateLatency() }
        MainContext.spin(0.1)
        XCTAssertLessThanOrEqual(events.value.load(ordering: .relaxed), 1, "the same latency is sent at most once")
        XCTAssertGreaterThan(speaker.latencyMilliseconds, 0)
    }

    /// Each wake sends the speaker's (unchanged) latency to its sinks again;
    /// the echo probe handles only the first (it leaks a query on each in
    /// GStreamer 1.22), and the elements above it still get every one.
    func testTheEchoProbeHandlesOneLatencyEventAcrossWakes() throws {
        let clock = ManualClock()
        let speaker = try SpeakerOutput(sink: "fakesink sync=true", clock: clock)
        let probe = try XCTUnwrap(speaker.pipelineForTests.element(named: speaker.probeName))
        func countLatencyEvents(at pad: Pad) -> FrameCounter {
            let events = FrameCounter()
            pad.addProbe(GST_PAD_PROBE_TYPE_EVENT_UPSTREAM) { info in
                if let event = gst_pad_probe_info_get_event(info), event.pointee.type == GST_EVENT_LATENCY {
                    events.value.add(1, ordering: .relaxed)
                }
                return GST_PAD_PROBE_OK
            }
            return events
        }
        // Added after the gate: sees only what reaches the probe itself.
        let handled = countLatencyEvents(at: try XCTUnwrap(probe.staticPad("src")))
        let passedUp = countLatencyEvents(at: try XCTUnwrap(probe.staticPad("sink")))
        for wake in 1...2 {
            letSpeakerSleep(speaker, clock, "asleep (\(wake))")
            let before = passedUp.value.load(ordering: .relaxed)
            speaker.play(.click)
            XCTAssertFalse(speaker.isAsleep)
            // The gate's probe comes before the counter on the same pad and
            // on the same thread: by the time the event is past the probe,
            // the counter has seen it if the gate let it through.
            waitUntil("wake \(wake)'s latency passes the probe") { passedUp.value.load(ordering: .relaxed) > before }
        }
        XCTAssertEqual(handled.value.load(ordering: .relaxed), 0, "the probe learnt the latency at start and is not told it again")
        XCTAssertGreaterThanOrEqual(passedUp.value.load(ordering: .relaxed), 2, "every wake's latency event still goes upstream")
    }

    /// A call whose first buffers came late (here 30 ms, as at a
    /// connection's start-up) does not keep that delay to its end: once it
    /// has played a while, the mixer places its audio by its timestamps
    /// again. Without that, the mixer goes on from where it put the first
    /// buffer, 30 ms late for the whole call.
    func testACallsLateStartIsNotKeptForTheWholeCall() throws {
        let clock = ManualClock()
        let speaker = try SpeakerOutput(sink: "fakesink sync=true", clock: clock)
        // gst_parse_launch gives a floating reference: retaining sinks it.
        let call = Pipeline(retaining: try XCTUnwrap(gst_parse_launch(
            "audiotestsrc name=voice is-live=true wave=ticks freq=1000 tick-interval=500000000 sine-periods-per-tick=60"
            + " volume=0.5 timestamp-offset=30000000 ! audio/x-raw,format=S16LE,rate=48000,channels=1"
            + " ! identity name=mouth ! proxysink name=out", nil)))
        defer { call.setState(GST_STATE_NULL) }
        speaker.align(call.pointer)
        let mouth = try XCTUnwrap(AudioOnsetProbe.attach(to: "mouth", in: call.pointer, timing: .capture))
        let ear = try XCTUnwrap(speaker.onsetProbe(timing: .capture))
        let proxySink = try XCTUnwrap(call.element(named: "out"))
        let input = try speaker.attach(proxySink: proxySink.pointer, name: "late-call")
        defer { input.remove() }
        call.setState(GST_STATE_PLAYING)
        waitUntil("the call plays, late") { ear.onsets.count >= 2 }
        XCTAssertEqual(clock.pendingCount, 1, "the realignment timer runs from the call's first buffer; no idle timer")
        // From now on its buffers are on time.
        call.element(named: "voice")?.set("timestamp-offset", fromString: "0")
        let changed = mouth.onsets.count
        waitUntil("a burst on time leaves the call") { mouth.onsets.count > changed }
        // Realigned twice, as the timer would every `callRealignSeconds`.
        for _ in 1...2 {
            let heard = ear.onsets.count
            clock.advance(by: speaker.callRealignSeconds)
            waitUntil("a burst after the realignment") { ear.onsets.count > heard }
        }
        let realigned = ear.onsets.count
        waitUntil("three bursts after the realignment") { ear.onsets.count >= realigned + 3 }
        // On time, the mixer's output carries exactly the input's timestamps:
        // matched from 5 ms before each burst (a sample's rounding either way).
        let all = AudioOnsetProbe.delays(mouth: mouth.onsets.map { $0 - 5_000_000 }, ear: ear.onsets).map { $0 - 5 }
        print("late call: mouth \(mouth.onsets.count) onsets, ear \(ear.onsets.count); delays \(all.map { Int($0) }) ms")
        // The last bursts, after the realignment.
        let delays = all.suffix(3).sorted()
        XCTAssertEqual(delays.count, 3, "tone bursts matched: \(all)")
        guard delays.count == 3 else { return }
        XCTAssertLessThan(abs(delays[1]), 10, "placed by their timestamps again: \(all) ms")
    }

    /// The speaker's latency is what a call will give it from the start
    /// (the call's jitterbuffer, the mixer's period, the sink's deadline):
    /// a call joining does not change it.
    func testLatencyStartsAtACallsLatency() throws {
        let speaker = try SpeakerOutput(sink: "fakesink sync=true", callLatencyMilliseconds: 50, clock: ManualClock())
        XCTAssertEqual(speaker.pipelineForTests.latency, 50_000_000 + 5_000_000 + 5_000_000) // jitterbuffer, mixer period, sink deadline
    }

    /// A speaker that cannot open says so; the ringtone tries it again (and
    /// it fails again, said again), is then silent, and nothing fails. A
    /// failed speaker never sleeps.
    func testSpeakerThatCannotOpenIsReported() throws {
        Log.echoToStandardError = false
        defer { Log.echoToStandardError = true }
        let clock = ManualClock()
        let speaker = try SpeakerOutput(sink: "tcpclientsink host=127.0.0.1 port=1", clock: clock)
        let problem = try XCTUnwrap(speaker.problem)
        XCTAssertTrue(problem.hasPrefix("the speaker 'tcpclientsink host=127.0.0.1 port=1' cannot play:"), problem)
        XCTAssertTrue(problem.contains("--audio-sink"), problem)
        var reported: [String] = []
        speaker.onProblem = { reported.append($0) }
        let ringtone = try Ringtone(source: Ringtone.defaultDescription, speaker: speaker)
        XCTAssertEqual(reported.count, 1, "the ringtone's start tried the speaker again")
        XCTAssertNotNil(speaker.problem)
        // The failed start's messages, handled: stopped again, not said again.
        MainContext.spin(0.2)
        XCTAssertEqual(reported.count, 1)
        clock.advance(by: 60)
        XCTAssertFalse(speaker.isAsleep, "a failed speaker does not sleep")
        XCTAssertEqual(clock.pendingCount, 0)
        ringtone.stop()
        XCTAssertEqual(speaker.playingCount, 0)
    }
}

/// Speakers on a `ManualClock`: moving time to let sounds leave and the idle
/// timer fire.
extension SpeakerOutputTests {
    /// Moves `clock` on by sounds' tails until every input has left the
    /// mixer (sounds that played out; the test waits for that itself).
    func letSoundsLeave(_ speaker: SpeakerOutput, _ clock: ManualClock, file: StaticString = #filePath, line: UInt = #line) {
        waitUntil("the sounds leave the mixer", file: file, line: line) {
            clock.advance(by: SpeakerOutput.soundTailSeconds)
            return speaker.playingCount == 0
        }
    }

    /// Lets the sounds leave, then moves `clock` past the idle period: the speaker sleeps.
    func letSpeakerSleep(_ speaker: SpeakerOutput, _ clock: ManualClock, _ what: String, file: StaticString = #filePath, line: UInt = #line) {
        letSoundsLeave(speaker, clock, file: file, line: line)
        XCTAssertFalse(speaker.isAsleep, "\(what): not before the idle period", file: file, line: line)
        clock.advance(by: speaker.power.idleSeconds)
        XCTAssertTrue(speaker.isAsleep, what, file: file, line: line)
    }
}
