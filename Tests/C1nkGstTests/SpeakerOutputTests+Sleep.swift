import C1nkProbes
import C1nkSpeaker
import CGStreamer
import Foundation
import XCTest
@testable import C1nkGLib
@testable import C1nkMedia

/// The speaker's sleep on its graph: when it sleeps (on a `ManualClock`),
/// what runs while it sleeps, and how it wakes.
extension SpeakerOutputTests {
    /// Awake while anything plays, however long; asleep exactly one idle
    /// period after the last input left. Asleep, the mixer is stopped and
    /// the sink paused.
    func testDoesNotSleepWhileTheRingtoneOrACallPlays() throws {
        let clock = ManualClock()
        let speaker = try SpeakerOutput(sink: "fakesink sync=true", clock: clock, idleSeconds: 2)
        let ringtone = try Ringtone(source: Ringtone.defaultDescription, speaker: speaker)
        clock.advance(by: 60)
        XCTAssertFalse(speaker.isAsleep, "the ringtone keeps it awake")
        // A call joins before the ringtone stops, as at an accept.
        let call = Pipeline(retaining: try XCTUnwrap(gst_parse_launch("audiotestsrc is-live=true wave=silence ! proxysink name=feed", nil)))
        defer { call.setState(GST_STATE_NULL) }
        speaker.align(call.pointer)
        let input = try speaker.attach(proxySink: try XCTUnwrap(call.element(named: "feed")).pointer, name: "call")
        ringtone.stop()
        XCTAssertEqual(speaker.playingCount, 1)
        clock.advance(by: 60)
        XCTAssertFalse(speaker.isAsleep, "the call keeps it awake")
        input.remove()
        clock.advance(by: 1.99)
        XCTAssertFalse(speaker.isAsleep, "not before the idle period")
        clock.advance(by: 0.01)
        XCTAssertTrue(speaker.isAsleep, "one idle period after the call left")
        let mixer = try XCTUnwrap(speaker.pipelineForTests.element(named: "mix"))
        XCTAssertEqual(mixer.currentState, GST_STATE_READY, "the mixer stopped")
        let sink = try XCTUnwrap(speaker.pipelineForTests.elements.first { $0.factoryName == "fakesink" })
        XCTAssertEqual(sink.currentState, GST_STATE_PAUSED, "the sink held open")
        XCTAssertNil(speaker.keepOpen, "the silent source gone")
        XCTAssertEqual(clock.pendingCount, 0, "nothing left to time")
    }

    /// With nothing to play the speaker sleeps (the device open but paused,
    /// nothing written); a sound wakes it and plays whole, as loud as the
    /// same sound played awake.
    func testSleepsWhenIdleAndWakesForTheFirstSound() throws {
        let device = try ExclusiveDevice()
        defer { device.stop() }
        let clock = ManualClock()
        let speaker = try SpeakerOutput(sink: device.sink, clock: clock)
        XCTAssertNil(speaker.problem)
        waitUntil("the device is written to while awake") { device.bytes > 0 }
        letSpeakerSleep(speaker, clock, "asleep with nothing to play")
        // The last buffer already on its way to the sink when the mixer
        // stopped may still reach the device (5 ms of silence).
        MainContext.spin(0.2)
        let bytes = device.bytes
        // Nothing runs that could write: no source, the mixer stopped.
        XCTAssertNil(speaker.keepOpen)
        XCTAssertEqual(try XCTUnwrap(speaker.pipelineForTests.element(named: "mix")).currentState, GST_STATE_READY)
        MainContext.spin(0.2)
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
        letSpeakerSleep(speaker, clock, "asleep again")
        XCTAssertEqual(device.connections, 1, "the device stayed open throughout")
        XCTAssertNil(speaker.problem)
    }

    /// A wake starts mixing at the current time. The mixer used to time
    /// out before a call's first buffer, start at zero and mix
    /// everything from there to now at once: a burst as long as the
    /// process had run, at every wake.
    func testAWakeMixesFromNowNotFromZero() throws {
        let clock = ManualClock()
        let speaker = try SpeakerOutput(sink: "fakesink", clock: clock)
        let output = try XCTUnwrap(speaker.pipelineForTests.element(named: "mix")?.staticPad("src"))
        final class FirstBuffer: @unchecked Sendable {
            private let lock = NSLock()
            private var time: UInt64?
            var value: UInt64? { lock.withLock { time } }
            func note(_ running: UInt64) { lock.withLock { if time == nil { time = running } } }
            func reset() { lock.withLock { time = nil } }
        }
        let first = FirstBuffer()
        output.addProbe(GST_PAD_PROBE_TYPE_BUFFER) { info in
            if let buffer = info.pointee.data?.assumingMemoryBound(to: GstBuffer.self) {
                first.note(AudioOnsetProbe.runningTime(of: buffer.pointee.pts, on: output.pointer))
            }
            return GST_PAD_PROBE_OK
        }
        let systemClock = SystemClock()
        func runningTime() -> UInt64 { UInt64(systemClock.time - speaker.pipelineForTests.baseTime) }
        for wake in 1...3 {
            letSpeakerSleep(speaker, clock, "asleep (\(wake))")
            // The running time moves on while it sleeps: a mixer that
            // started from zero or from where it stopped would be seen.
            let asleepAt = runningTime()
            waitUntil("the running time moves on (\(wake))") { runningTime() >= asleepAt + 500_000_000 }
            first.reset()
            let woken = runningTime()
            // A call wakes it: its input answers the latency query at once
            // (the call's pipeline is live) and has no buffer yet.
            let call = Pipeline(retaining: try XCTUnwrap(gst_parse_launch("audiotestsrc is-live=true wave=silence ! proxysink name=feed", nil)))
            defer { call.setState(GST_STATE_NULL) }
            speaker.align(call.pointer)
            let feed = try XCTUnwrap(call.element(named: "feed"))
            let input = try speaker.attach(proxySink: feed.pointer, name: "call")
            defer { input.remove() }
            waitUntil("mixing again (\(wake))") { first.value != nil }
            let start = try XCTUnwrap(first.value)
            XCTAssertGreaterThan(Double(start) / 1e9, Double(woken) / 1e9 - 0.1,
                                 "wake \(wake): the mixer's first buffer is at the time it woke, not before")
        }
    }

    /// The display's sounds reach the sink; every tone is an input of the
    /// mixer until it has played out and left, and then the sink hears
    /// silence again.
    func testSoundsPlayAndLeave() throws {
        let clock = ManualClock()
        let speaker = try SpeakerOutput(sink: "fakesink sync=true", clock: clock)
        let start = MainContext.monotonicSeconds()
        waitUntil("the speaker plays") { speaker.levels.contains { $0.time >= start } }
        XCTAssertLessThan(speaker.loudest(since: start), -60, "silence while nothing plays")
        for sound in SpeakerSound.allCases {
            let before = MainContext.monotonicSeconds()
            speaker.play(sound)
            waitUntil("\(sound) plays") { speaker.loudest(since: before) > -30 }
        }
        XCTAssertEqual(speaker.playingCount, SpeakerSound.allCases.map(\.tones.count).reduce(0, +), "every tone is an input")
        // The sounds overlap and each plays its tones back to back: the
        // first silence after the last one began is after they all ended.
        let last = MainContext.monotonicSeconds()
        waitUntil("the sounds end") { speaker.levels.contains { $0.time >= last && $0.level < -60 } }
        letSoundsLeave(speaker, clock)
        XCTAssertFalse(speaker.isAsleep)
        let after = MainContext.monotonicSeconds()
        waitUntil("a level once they left") { speaker.levels.contains { $0.time >= after } }
        XCTAssertLessThan(speaker.loudest(since: after), -60, "silent again once the sounds ended")
    }
}
