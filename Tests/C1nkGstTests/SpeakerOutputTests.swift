import CGStreamer
import XCTest
@testable import C1nkGLib
@testable import C1nkMedia
@testable import C1nkProbes

/// One owner of the speaker: the ringtone, the display's sounds and the
/// call's audio share one sink, and the microphone opens only at accept.
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
        speaker.play(.doorOpened)
        speaker.play(.click)
        MainContext.spin(0.6)
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
        let speaker = try SpeakerOutput(sink: "fakesink sync=true name=ear")
        speaker.play(.click)
        MainContext.spin(0.3)
        let sink = try XCTUnwrap(Gst.find("ear", in: speaker.pipelineForTests))
        defer { gst_object_unref(UnsafeMutableRawPointer(sink)) }
        let pad = try XCTUnwrap(gst_element_get_static_pad(sink, "sink"))
        defer { gst_object_unref(UnsafeMutableRawPointer(pad)) }
        let events = FrameCounter()
        PadProbe.add(pad, GST_PAD_PROBE_TYPE_EVENT_UPSTREAM) { info in
            if let event = info.pointee.data?.assumingMemoryBound(to: GstEvent.self), event.pointee.type == GST_EVENT_LATENCY {
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
        let speaker = try SpeakerOutput(sink: "fakesink sync=true")
        let probe = try XCTUnwrap(Gst.find(speaker.probeName, in: speaker.pipelineForTests))
        defer { gst_object_unref(UnsafeMutableRawPointer(probe)) }
        let source = try XCTUnwrap(gst_element_get_static_pad(probe, "src"))
        defer { gst_object_unref(UnsafeMutableRawPointer(source)) }
        let sink = try XCTUnwrap(gst_element_get_static_pad(probe, "sink"))
        defer { gst_object_unref(UnsafeMutableRawPointer(sink)) }
        func countLatencyEvents(at pad: UnsafeMutablePointer<GstPad>) -> FrameCounter {
            let events = FrameCounter()
            PadProbe.add(pad, GST_PAD_PROBE_TYPE_EVENT_UPSTREAM) { info in
                if let event = gst_pad_probe_info_get_event(info), event.pointee.type == GST_EVENT_LATENCY {
                    events.value.add(1, ordering: .relaxed)
                }
                return GST_PAD_PROBE_OK
            }
            return events
        }
        // Added after the gate: sees only what reaches the probe itself.
        let handled = countLatencyEvents(at: source)
        let passedUp = countLatencyEvents(at: sink)
        for wake in 1...2 {
            waitUntil("asleep (\(wake))", timeout: 5) { speaker.isAsleep }
            speaker.play(.click)
            XCTAssertFalse(speaker.isAsleep)
            MainContext.spin(0.3)
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
        let speaker = try SpeakerOutput(sink: "fakesink sync=true")
        var error: UnsafeMutablePointer<GError>?
        let call = try XCTUnwrap(gst_parse_launch(
            "audiotestsrc name=voice is-live=true wave=ticks freq=1000 tick-interval=500000000 sine-periods-per-tick=60"
            + " volume=0.5 timestamp-offset=30000000 ! audio/x-raw,format=S16LE,rate=48000,channels=1"
            + " ! identity name=mouth ! proxysink name=out", &error))
        defer {
            gst_element_set_state(call, GST_STATE_NULL)
            gst_object_unref(UnsafeMutableRawPointer(call))
        }
        speaker.align(call)
        let mouth = try XCTUnwrap(AudioOnsetProbe.attach(to: "mouth", in: call, timing: .capture))
        let ear = try XCTUnwrap(speaker.onsetProbe(timing: .capture))
        let proxySink = try XCTUnwrap(Gst.find("out", in: call))
        defer { gst_object_unref(UnsafeMutableRawPointer(proxySink)) }
        let input = try speaker.attach(proxySink: proxySink, name: "late-call")
        defer { input.remove() }
        gst_element_set_state(call, GST_STATE_PLAYING)
        MainContext.spin(1)
        // From now on its buffers are on time.
        let voice = try XCTUnwrap(Gst.find("voice", in: call))
        ObjectProperty.set(UnsafeMutableRawPointer(voice), "timestamp-offset", "0")
        gst_object_unref(UnsafeMutableRawPointer(voice))
        MainContext.spin(SpeakerOutput.callRealignSeconds * 2 + 1)
        // On time, the mixer's output carries exactly the input's timestamps:
        // matched from 5 ms before each burst (a sample's rounding either way).
        let all = AudioOnsetProbe.delays(mouth: mouth.onsets.map { $0 - 5_000_000 }, ear: ear.onsets).map { $0 - 5 }
        print("late call: mouth \(mouth.onsets.count) onsets, ear \(ear.onsets.count); delays \(all.map { Int($0) }) ms")
        // The bursts of the last second or so, after the realignment.
        let delays = all.suffix(3).sorted()
        XCTAssertEqual(delays.count, 3, "tone bursts matched: \(all)")
        guard delays.count == 3 else { return }
        XCTAssertLessThan(abs(delays[1]), 10, "placed by their timestamps again: \(all) ms")
    }

    /// The speaker's latency is what a call will give it from the start
    /// (the call's jitterbuffer, the mixer's period, the sink's deadline):
    /// a call joining does not change it.
    func testLatencyStartsAtACallsLatency() throws {
        let speaker = try SpeakerOutput(sink: "fakesink sync=true", callLatencyMilliseconds: 50)
        let pipeline = UnsafeMutableRawPointer(speaker.pipelineForTests).assumingMemoryBound(to: GstPipeline.self)
        XCTAssertEqual(gst_pipeline_get_latency(pipeline), 50_000_000 + 5_000_000 + 5_000_000) // jitterbuffer, mixer period, sink deadline
    }

    /// With nothing to play the speaker sleeps (the device open but paused,
    /// nothing written); a sound wakes it and plays whole, as loud as the
    /// same sound played awake.
    func testSleepsWhenIdleAndWakesForTheFirstSound() throws {
        let device = try ExclusiveDevice()
        defer { device.stop() }
        let speaker = try SpeakerOutput(sink: device.sink)
        XCTAssertNil(speaker.problem)
        waitUntil("asleep with nothing to play", timeout: 5) { speaker.isAsleep }
        // The last buffer already on its way to the sink when the mixer
        // stopped may still reach the device (5 ms of silence).
        MainContext.spin(0.2)
        let bytes = device.bytes
        MainContext.spin(0.4)
        XCTAssertEqual(device.bytes, bytes, "nothing is written while asleep")

        /// The sound's energy at the mixer's output, once it has played out.
        func energy(of sound: SpeakerSound) -> Double {
            let start = MainContext.monotonicSeconds()
            speaker.play(sound)
            func heard() -> [Double] { speaker.levels.filter { $0.time >= start }.map(\.level) }
            waitUntil("\(sound) plays and ends", timeout: 5) {
                let levels = heard()
                return levels.firstIndex { $0 > -30 }.map { loud in levels[loud...].contains { $0 < -60 } } ?? false
            }
            return heard().reduce(0) { $0 + pow(10, $1 / 10) }
        }
        let asleep = energy(of: .doorOpened)
        XCTAssertFalse(speaker.isAsleep)
        XCTAssertGreaterThan(device.bytes, bytes, "written to the device once awake")
        let awake = energy(of: .doorOpened)
        XCTAssertGreaterThan(awake, 0)
        XCTAssertGreaterThan(asleep / awake, 0.8, "the first sound after sleeping plays whole (\(asleep) vs \(awake))")
        waitUntil("asleep again", timeout: 5) { speaker.isAsleep }
        XCTAssertEqual(device.connections, 1, "the device stayed open throughout")
        XCTAssertNil(speaker.problem)
    }

    /// A wake starts mixing at the current time. The mixer used to time
    /// out before a call's first buffer, start at zero and mix
    /// everything from there to now at once: a burst as long as the
    /// process had run, at every wake.
    func testAWakeMixesFromNowNotFromZero() throws {
        let speaker = try SpeakerOutput(sink: "fakesink")
        let mixer = try XCTUnwrap(Gst.find("mix", in: speaker.pipelineForTests))
        defer { gst_object_unref(UnsafeMutableRawPointer(mixer)) }
        let output = try XCTUnwrap(gst_element_get_static_pad(mixer, "src"))
        defer { gst_object_unref(UnsafeMutableRawPointer(output)) }
        final class FirstBuffer: @unchecked Sendable {
            private let lock = NSLock()
            private var time: UInt64?
            var value: UInt64? { lock.withLock { time } }
            func note(_ running: UInt64) { lock.withLock { if time == nil { time = running } } }
            func reset() { lock.withLock { time = nil } }
        }
        let first = FirstBuffer()
        PadProbe.add(output, GST_PAD_PROBE_TYPE_BUFFER) { info in
            if let buffer = info.pointee.data?.assumingMemoryBound(to: GstBuffer.self) {
                let running = AudioOnsetProbe.runningTime(of: buffer.pointee.pts, on: output)
                first.note(running)
            }
            return GST_PAD_PROBE_OK
        }
        func runningTime() -> UInt64 {
            let clock = gst_system_clock_obtain()!
            defer { gst_object_unref(UnsafeMutableRawPointer(clock)) }
            return UInt64(gst_clock_get_time(clock) - gst_element_get_base_time(speaker.pipelineForTests))
        }
        for wake in 1...3 {
            waitUntil("asleep (\(wake))", timeout: 5) { speaker.isAsleep }
            MainContext.spin(1.5) // the running time moves on while it sleeps
            first.reset()
            let woken = runningTime()
            // A call wakes it: its input answers the latency query at once
            // (the call's pipeline is live) and has no buffer yet.
            let call = try XCTUnwrap(gst_parse_launch("audiotestsrc is-live=true wave=silence ! proxysink name=feed", nil))
            defer {
                gst_element_set_state(call, GST_STATE_NULL)
                gst_object_unref(UnsafeMutableRawPointer(call))
            }
            speaker.align(call)
            let feed = try XCTUnwrap(Gst.find("feed", in: call))
            defer { gst_object_unref(UnsafeMutableRawPointer(feed)) }
            let input = try speaker.attach(proxySink: feed, name: "call")
            defer { input.remove() }
            waitUntil("mixing again (\(wake))") { first.value != nil }
            let start = try XCTUnwrap(first.value)
            XCTAssertGreaterThan(Double(start) / 1e9, Double(woken) / 1e9 - 0.1,
                                 "wake \(wake): the mixer's first buffer is at the time it woke, not before")
        }
    }

    /// The display's sounds reach the sink; a finished sound leaves the mixer.
    func testSoundsPlayAndLeave() throws {
        let speaker = try SpeakerOutput(sink: "fakesink sync=true")
        MainContext.spin(0.2)
        let start = MainContext.monotonicSeconds()
        XCTAssertLessThan(speaker.loudest(since: start), -60, "silence while nothing plays")
        for sound in SpeakerSound.allCases {
            let before = MainContext.monotonicSeconds()
            speaker.play(sound)
            waitUntil("\(sound) plays") { speaker.loudest(since: before) > -30 }
        }
        MainContext.spin(1)
        let after = MainContext.monotonicSeconds()
        MainContext.spin(0.3)
        XCTAssertLessThan(speaker.loudest(since: after), -60, "silent again once the sounds ended")
    }

    /// A speaker that cannot open says so; the ringtone is then silent and
    /// nothing fails.
    func testSpeakerThatCannotOpenIsReported() throws {
        Log.echoToStandardError = false
        defer { Log.echoToStandardError = true }
        let speaker = try SpeakerOutput(sink: "tcpclientsink host=127.0.0.1 port=1")
        let problem = try XCTUnwrap(speaker.problem)
        XCTAssertTrue(problem.hasPrefix("the speaker 'tcpclientsink host=127.0.0.1 port=1' cannot play:"), problem)
        XCTAssertTrue(problem.contains("--audio-sink"), problem)
        let ringtone = try Ringtone(source: Ringtone.defaultDescription, speaker: speaker)
        MainContext.spin(0.2)
        ringtone.stop()
    }
}

/// Mute belongs to the call, not to one media session.
final class MuteTests: XCTestCase {
    /// Muted while ringing, the microphone stays muted after the accept and
    /// after the door's re-offer (a new session); `levels` events say so.
    func testMuteWhileRingingSurvivesAcceptAndReoffer() throws {
        let harness = try CallHarness { options in
            options.answerMode = .manual
            options.levelsInterval = 0.5
        }
        defer { harness.stop() }
        harness.door.ring()
        waitUntil("ringing") { harness.count("ringing") == 1 }
        XCTAssertNil(harness.answerer.command("mute"))
        waitUntil("media while ringing") { harness.count("media-connected") == 1 }
        XCTAssertNil(harness.answerer.command("accept"))
        waitUntil("accepted") { harness.door.acceptedAt != nil }
        let accepted = try XCTUnwrap(harness.door.acceptedAt)
        waitUntil("the resident hears the door") { (harness.answerer.currentSession?.speakerPeakWhileEnabled ?? -.infinity) > -30 }
        MainContext.spin(0.8)
        XCTAssertLessThan(harness.door.loudestHeard(since: accepted), -60, "muted before the accept: the door hears nothing")

        // Held, so that the new session cannot be allocated at its address.
        let firstSession = harness.answerer.currentSession
        harness.door.restartMedia()
        waitUntil("a new session") { harness.answerer.currentSession.map { $0 !== firstSession } ?? false }
        let reoffered = MainContext.monotonicSeconds()
        waitUntil("the new session plays the door") { (harness.answerer.currentSession?.speakerPeakWhileEnabled ?? -.infinity) > -30 }
        MainContext.spin(0.8)
        XCTAssertTrue(harness.answerer.currentSession?.isMicrophoneMuted ?? false)
        XCTAssertLessThan(harness.door.loudestHeard(since: reoffered), -60, "still muted after the re-offer")

        XCTAssertNil(harness.answerer.command("unmute"))
        let unmuted = MainContext.monotonicSeconds()
        waitUntil("the door hears the resident") { harness.door.loudestHeard(since: unmuted) > -30 }

        let levels = harness.answerers[0].events.written.filter { $0["event"] as? String == "levels" }
        XCTAssertGreaterThan(levels.count, 2)
        XCTAssertTrue(levels.contains { ($0["door"] as? Double ?? -100) > -40 && $0["muted"] as? Bool == true }, "\(levels)")
        XCTAssertNil(harness.answerer.command("hangup"))
        waitUntil("ended") { harness.count("ended") == 1 }
    }
}
