import CGStreamer
import Foundation
import XCTest
@testable import C1nkDoor
@testable import C1nkGLib
@testable import C1nkMedia
@testable import C1nkProbes

/// `sync=false` reaches every sink of a `--sink` bin, unless the description
/// sets `sync` itself: the glass-to-glass latency read at the real sink
/// inside the bin shows it.
final class SinkSyncTests: XCTestCase {
    /// Glass-to-glass ages (ms) of the frames the sink named `glass` rendered:
    /// `frames` of them after the first ten (two seconds of the door's 30 fps by default).
    func agesAtSink(_ sink: String, renderImmediately: Bool = true, latency: UInt = 100, frames: Int = 60) throws -> (ages: [Double], sync: String?) {
        var doorOptions = DoorMediaSession.Options()
        doorOptions.ice = .loopback
        doorOptions.stampTime = true
        let door = try DoorMediaSession(options: doorOptions)
        var configuration = MediaSessionTests.testConfiguration()
        configuration.videoSink = sink
        configuration.renderImmediately = renderImmediately
        configuration.latencyMilliseconds = latency
        let ages = AgeRecorder()
        var answerer: AnswerSession?
        var handoff: SignalConnection?
        var sync: String?
        door.onOffer = { offer in
            answerer = try? AnswerSession(callId: "sync", offer: offer, configuration: configuration, audioEnabled: false)
            answerer?.onAnswer = { door.applyAnswer($0) }
            answerer?.onLocalCandidate = { door.addRemoteCandidate($0) }
            answerer?.onFailure = { XCTFail($0) }
            if let glass = answerer?.element(named: "glass") {
                sync = glass.has(property: "sync") ? (glass[bool: "sync"] ? "true" : "false") : nil
                // Test fixture: reads each rendered frame's stamp (after the sink's clock wait).
                handoff = glass.connect("handoff") { (buffer: gpointer?, pad: gpointer?) in
                    guard let buffer = buffer?.assumingMemoryBound(to: GstBuffer.self),
                          let pad = pad?.assumingMemoryBound(to: GstPad.self) else { return }
                    let width = Int(Gst.capsField(pad, "width") ?? "") ?? 640
                    ages.record(buffer, width: width, height: 480)
                }
            }
        }
        door.onLocalCandidate = { answerer?.addRemoteCandidate($0) }
        defer {
            handoff?.disconnect()
            answerer?.stop()
            door.stop()
        }
        waitUntil("frames at the sink", timeout: 15) { ages.count > 10 }
        waitUntil("\(frames) more frames at the sink", timeout: 15) { ages.count > 10 + frames }
        return (ages.all, sync)
    }

    func testSyncFalseReachesTheSinkInsideABin() throws {
        let bin = "videoconvert ! videoscale ! fakevideosink name=glass signal-handoffs=true"
        let immediate = try agesAtSink(bin)
        XCTAssertEqual(immediate.sync, "false", "the real sink inside the bin renders at once")
        let synced = try agesAtSink(bin, renderImmediately: false)
        XCTAssertEqual(synced.sync, "true")
        let fast = LatencyStats(immediate.ages).p50
        let slow = LatencyStats(synced.ages).p50
        // With a 100 ms jitterbuffer a synced sink holds each frame ~100 ms
        // more; rendering at once must save most of it.
        XCTAssertLessThan(fast + 50, slow, "glass-to-glass p50 at the sink: \(fast) ms at once, \(slow) ms synced")
        print("bin sink glass-to-glass p50: \(fast) ms with sync=false, \(slow) ms with sync=true")
    }

    func testADescriptionThatSetsSyncKeepsIt() throws {
        let result = try agesAtSink("videoconvert ! fakevideosink name=glass signal-handoffs=true sync=true", frames: 15)
        XCTAssertEqual(result.sync, "true")
    }
}

/// Frame ages recorded from a streaming thread.
final class AgeRecorder: @unchecked Sendable {
    private let lock = NSLock()
    private var ages: [Double] = []

    func record(_ buffer: UnsafeMutablePointer<GstBuffer>, width: Int, height: Int) {
        guard let stamp = FrameStamp.read(buffer, width: width, height: height), let age = FrameStamp.age(of: stamp) else { return }
        lock.withLock { ages.append(age) }
    }

    var count: Int { lock.withLock { ages.count } }
    var all: [Double] { lock.withLock { ages } }
}
