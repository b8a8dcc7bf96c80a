import Foundation
import XCTest
@testable import C1nkMedia
@testable import C1nkService

/// Recording retention: the policy as a pure function, the pattern that
/// decides which files are ours, and sweeps of a real folder with fake ages.
final class RetentionTests: XCTestCase {
    let day = 86_400.0

    func testPlanDeletesByAgeThenOldestFirstBySize() {
        let now = 100 * day
        let files = [
            RetentionPolicy.File(path: "a", modified: now - 40 * day, bytes: 1_000_000_000),
            RetentionPolicy.File(path: "b", modified: now - 20 * day, bytes: 1_000_000_000),
            RetentionPolicy.File(path: "c", modified: now - 10 * day, bytes: 1_000_000_000),
            RetentionPolicy.File(path: "d", modified: now - 1 * day, bytes: 1_000_000_000),
        ]
        XCTAssertTrue(RetentionPolicy().plan(files, now: now).isEmpty, "no limits, nothing deleted")
        XCTAssertEqual(RetentionPolicy(keepDays: 30).plan(files, now: now).map(\.path), ["a"])
        XCTAssertEqual(RetentionPolicy(keepGigabytes: 2).plan(files, now: now).map(\.path), ["a", "b"])
        let both = RetentionPolicy(keepDays: 15, keepGigabytes: 1.5).plan(files, now: now)
        XCTAssertEqual(both.map(\.path), ["a", "b", "c"])
        XCTAssertEqual(both.map(\.reason), [.age, .age, .size])
        XCTAssertEqual(RetentionPolicy(keepGigabytes: 2).plan(files, now: now, protected: ["a"]).map(\.path), ["b", "c"],
                       "a recording in progress is never deleted, but counts")
        XCTAssertFalse(RetentionPolicy(minimumFreeGigabytes: 1).allowsRecording(freeBytes: 999_999_999))
        XCTAssertTrue(RetentionPolicy(minimumFreeGigabytes: 1).allowsRecording(freeBytes: 1_000_000_000))
    }

    func testPatternsThatCouldMatchOtherFilesAreRefused() {
        for template in ["/srv/door/call.mkv", "/srv/door/%a.mkv", "/srv/door/recording.mp4"] {
            XCTAssertThrowsError(try RecordingRetention(policy: RetentionPolicy(keepDays: 1), template: template), template) { error in
                XCTAssertTrue("\(error)".contains("add {callId} or a timestamp"), "\(error)")
            }
            XCTAssertNoThrow(try RecordingRetention(policy: RetentionPolicy(), template: template), "no retention, no refusal")
        }
        XCTAssertNoThrow(try RecordingPattern(template: "/srv/door/{callId}.mkv"))
        XCTAssertNoThrow(try RecordingPattern(template: "/srv/door/%Y-%m-%d_%H%M%S.mkv"))
    }

    func testPatternMatchesOnlyWhatTheTemplateWrites() throws {
        let pattern = try RecordingPattern(template: "/srv/door/%Y-%m-%d_%H%M%S-{callId}.mp4")
        XCTAssertEqual(pattern.root, "/srv/door")
        for path in ["/srv/door/2026-12-01_101500-call-1.mp4", "/srv/door/2026-12-01_101500-call-1-2.mp4",
                     "/srv/door/2026-12-01_101500-abc.mkv", "/srv/door/2026-12-01_101500-abc.jpg"] {
            XCTAssertTrue(pattern.matches(path), path)
        }
        for path in ["/srv/door/holiday.mp4", "/srv/door/2026-12-01_101500-call-1.mp4.part", "/srv/door/.2026-12-01_101500-c.jpg.part", "/srv/door/2026-12-01_101500-c.png", "/srv/door/2026-12-01-call.mp4",
                     "/srv/door/sub/2026-12-01_101500-x.mp4", "/srv/other/2026-12-01_101500-x.mp4", "/srv/door/2026-12-01_101500-a b.mp4"] {
            XCTAssertFalse(pattern.matches(path), path)
        }
        let nested = try RecordingPattern(template: "/srv/door/%Y/%m/{callId}.mkv")
        XCTAssertEqual(nested.root, "/srv/door")
        XCTAssertEqual(nested.depth, 2)
        XCTAssertTrue(nested.matches("/srv/door/2026/12/c1.mkv"))
        XCTAssertFalse(nested.matches("/srv/door/2026/c1.mkv"))
    }

    /// A real folder, ages set with `touch -d`: only c1nk's old files go, each with a `deleted` callback.
    func testSweepDeletesOnlyOldRecordingsOfThePattern() throws {
        let folder = temporaryDirectory()
        let old = folder + "/2026-01-01_100000-call-a.mkv"
        let recent = folder + "/2026-12-01_100000-call-b.mkv"
        let oldButNotOurs = folder + "/holiday.mkv"
        let oldInProgress = folder + "/2026-01-02_100000-call-c.mkv"
        let oldSymlink = folder + "/2026-01-03_100000-call-d.mkv"
        for path in [old, recent, oldButNotOurs, oldInProgress] { FileManager.default.createFile(atPath: path, contents: Data(count: 1000)) }
        try FileManager.default.createSymbolicLink(atPath: oldSymlink, withDestinationPath: oldButNotOurs)
        try touch(old, "40 days ago")
        try touch(oldButNotOurs, "400 days ago")
        try touch(oldInProgress, "40 days ago")
        try touch(recent, "1 hour ago")
        let retention = try RecordingRetention(policy: RetentionPolicy(keepDays: 30), template: folder + "/%Y-%m-%d_%H%M%S-{callId}.mkv")
        retention.protected = [oldInProgress]
        var deleted: [(String, RetentionPolicy.Reason)] = []
        retention.onDeleted = { deleted.append(($0, $1)) }
        XCTAssertEqual(retention.sweep(), [old])
        XCTAssertEqual(deleted.map(\.0), [old])
        XCTAssertEqual(deleted.map(\.1), [.age])
        for path in [recent, oldButNotOurs, oldInProgress, oldSymlink] {
            XCTAssertTrue(FileManager.default.fileExists(atPath: path) || (try? FileManager.default.destinationOfSymbolicLink(atPath: path)) != nil, path)
        }
        // By size: the oldest of ours goes first.
        let sized = try RecordingRetention(policy: RetentionPolicy(keepGigabytes: 0.0000015), template: folder + "/%Y-%m-%d_%H%M%S-{callId}.mkv")
        XCTAssertEqual(sized.sweep(), [oldInProgress])
        XCTAssertTrue(FileManager.default.fileExists(atPath: recent))
    }

    func testFreeSpaceFloorRefusesARecording() throws {
        let folder = temporaryDirectory()
        let tight = try RecordingRetention(policy: RetentionPolicy(minimumFreeGigabytes: 1_000_000), template: folder + "/{callId}.mkv")
        let refusal = try XCTUnwrap(tight.prepareForRecording())
        XCTAssertTrue(refusal.contains("not recording this call"), refusal)
        XCTAssertTrue(refusal.contains("--min-free-gb"), refusal)
        let roomy = try RecordingRetention(policy: RetentionPolicy(minimumFreeGigabytes: 0), template: folder + "/{callId}.mkv")
        XCTAssertNil(roomy.prepareForRecording())
    }

    /// With too little room the call goes on unrecorded, with an `error` event and no file.
    func testACallGoesOnWhenTheRecordingIsRefused() throws {
        let folder = temporaryDirectory()
        let harness = try CallHarness { options in
            options.media.recording = try? RecordingTarget(folder + "/{callId}.mkv")
            options.beforeRecording = { "not recording this call: 0.00 GB free" }
            options.answerMode = .auto
            options.hangupAfter = 1
        }
        defer { harness.stop() }
        harness.door.ring()
        waitUntil("the call to end", timeout: 20) { harness.names().contains("ended") }
        let names = harness.callEvents()
        XCTAssertTrue(names.contains("first-frame"), "\(names)")
        XCTAssertFalse(names.contains("recording"), "\(names)")
        XCTAssertEqual(harness.lastEvent("error")?["message"] as? String, "not recording this call: 0.00 GB free")
        XCTAssertEqual(harness.lastEvent("ended")?["reason"] as? String, "hangup")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder), [])
    }

    private func touch(_ path: String, _ date: String) throws {
        let process = try Process.run(URL(fileURLWithPath: "/usr/bin/touch"), arguments: ["-h", "-d", date, path])
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0)
    }
}
