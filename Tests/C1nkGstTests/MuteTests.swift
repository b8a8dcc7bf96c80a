import C1nkDoor
import C1nkGLib
import XCTest
@testable import C1nkGLib
@testable import C1nkMedia

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
        // Not a sleep: the door's own level reports must cover 0.8 s after the
        // accept, so its receiver was listening all that time.
        waitUntil("the door listened 0.8 s after the accept") { Self.listened(harness.door, since: accepted) >= 0.8 }
        XCTAssertLessThan(harness.door.loudestHeard(since: accepted), -60, "muted before the accept: the door hears nothing")

        // Held, so that the new session cannot be allocated at its address.
        let firstSession = harness.answerer.currentSession
        harness.door.restartMedia()
        waitUntil("a new session") { harness.answerer.currentSession.map { $0 !== firstSession } ?? false }
        let reoffered = MainContext.monotonicSeconds()
        waitUntil("the new session plays the door") { (harness.answerer.currentSession?.speakerPeakWhileEnabled ?? -.infinity) > -30 }
        waitUntil("the door listened 0.8 s after the re-offer") { Self.listened(harness.door, since: reoffered) >= 0.8 }
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

    /// How long the door has reported what it hears since `time` (its level messages' span).
    private static func listened(_ door: SimulatedDoor, since time: Double) -> Double {
        guard let last = door.heardLevels.last?.time, last > time else { return 0 }
        return last - time
    }
}
