import CGStreamer
import Foundation
import XCTest
@testable import C1nkDoor
@testable import C1nkGLib
@testable import C1nkLocal
@testable import C1nkPipeline
@testable import C1nkProbes

/// The visitor's snapshot through the real command: written while it rings,
/// beside the recording or to `--snapshot`, published to MQTT, and never an
/// error for a door without video.
final class SnapshotCommandTests: XCTestCase {
    typealias Command = AnswerCommandTests.Command
    private let prefix = "c1nk/porch"

    /// The real answerer, manual (nobody accepts: the snapshot is of the ringing call), against a stamping door.
    private func ringingCall(_ extra: [String], configure: @escaping (inout SimulatedDoor.Options) -> Void = { _ in },
                             until condition: ([[String: Any]]) -> Bool) throws -> (events: [[String: Any]], directory: String, stderr: String) {
        Log.echoToStandardError = false
        defer { Log.echoToStandardError = true }
        let (server, door) = try AnswerCommandTests.serverAndDoor(configure: {
            $0.media.stampTime = true
            configure(&$0)
        }) { _ in }
        defer { door.stop(); server.stop() }
        let directory = temporaryDirectory()
        let events = directory + "/events.jsonl"
        let command = try Command("c1nk-gst-answer", [
            "--server", server.url, "--events", events, "--device-id-file", directory + "/id", "--answer", "manual",
            "--stun", "none", "--ice-local-ip", "127.0.0.1", "--ringtone", "none", "--screens", "off",
            "--audio-source", "audiotestsrc is-live=true", "--audio-sink", "fakesink", "--sink", "fakesink"]
            + extra.map { $0.replacingOccurrences(of: "DIR", with: directory) })
        defer { if command.process.isRunning { command.signal(SIGKILL); _ = command.wait() } }
        waitUntil("answerer connected") { door.isReady && server.connectedAppIds.count == 1 }
        door.ring()
        waitUntil("the call to be far enough", timeout: 15) { condition(AnswerCommandTests.events(in: events)) }
        command.signal(SIGINT)
        XCTAssertEqual(command.wait(), 0, command.stderr)
        return (AnswerCommandTests.events(in: events), directory, command.stderr)
    }

    private static func has(_ name: String, _ events: [[String: Any]]) -> Bool { events.contains { $0["event"] as? String == name } }

    func testTheRingingVisitorsSnapshotIsBesideTheRecordingDecodesWithTheDoorsStampAndReachesMQTT() throws {
        let broker = try MQTTBroker()
        defer { broker.stop() }
        let observer = try MQTTObserver(broker)
        let passwordFile = temporaryDirectory() + "/mqtt-password"
        try (MQTTBroker.password + "\n").write(toFile: passwordFile, atomically: true, encoding: .utf8)
        chmod(passwordFile, 0o600)
        let result = try ringingCall(["--record", "DIR/{callId}.mkv", "--mqtt", "mqtt://127.0.0.1:\(broker.port)",
                                      "--mqtt-user", MQTTBroker.user, "--mqtt-password-file", passwordFile, "--mqtt-topic", prefix]) {
            Self.has("snapshot", $0)
        }
        let ring = try XCTUnwrap(result.events.first { $0["event"] as? String == "ringing" })
        let callId = try XCTUnwrap(ring["callId"] as? String)
        let snapshot = try XCTUnwrap(result.events.first { $0["event"] as? String == "snapshot" })
        XCTAssertEqual(snapshot["path"] as? String, "\(result.directory)/\(callId).jpg", "named as the recording is")
        XCTAssertFalse(Self.has("accepted", result.events), "taken while it rang")
        XCTAssertEqual(snapshot["callId"] as? String, callId)
        let picture = try XCTUnwrap(FileManager.default.contents(atPath: "\(result.directory)/\(callId).jpg"))
        XCTAssertEqual(Array(picture.prefix(2)), [0xFF, 0xD8], "a JPEG")
        let (width, height, stamp) = try Self.decode("\(result.directory)/\(callId).jpg")
        XCTAssertEqual([width, height], [640, 480], "the door's frame, full size")
        let read = try XCTUnwrap(stamp, "the door's stamp survives in the picture")
        XCTAssertLessThanOrEqual(read.sequence ?? .max, 90, "one of the call's first frames (the door's sequence number)")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: result.directory).filter { $0.hasSuffix(".part") }
        XCTAssertEqual(leftovers, [], "no partial file is left")

        waitUntil("the image on MQTT") { !observer.on(self.prefix + "/snapshot").isEmpty }
        let published = try XCTUnwrap(observer.on(prefix + "/snapshot").last)
        XCTAssertEqual(published.payload, Array(picture), "the JPEG's bytes")
        let discovery = try XCTUnwrap(observer.messages.last { $0.topic.hasPrefix("homeassistant/device/") })
        let components = try XCTUnwrap(observer.json(discovery)["cmps"] as? [String: [String: Any]])
        XCTAssertEqual(components.values.first { $0["p"] as? String == "image" }?["image_topic"] as? String, prefix + "/snapshot")
    }

    func testAnUnwritableSnapshotFolderIsAnErrorAndTheCallGoesOn() throws {
        let result = try ringingCall(["--snapshot", "DIR/missing-%Y/{callId}.jpg"]) { events in
            Self.has("first-frame", events) && events.contains { ($0["message"] as? String)?.contains("snapshot") ?? false }
        }
        let error = try XCTUnwrap(result.events.first { ($0["message"] as? String)?.contains("snapshot") ?? false })
        XCTAssertEqual(error["event"] as? String, "error")
        let message = try XCTUnwrap(error["message"] as? String)
        XCTAssertTrue(message.contains("missing-") && message.contains("No such file or directory"), message)
        XCTAssertFalse(Self.has("snapshot", result.events))
        XCTAssertEqual(result.events.filter { $0["event"] as? String == "ended" }.map { $0["reason"] as? String }, ["shutdown"],
                       "the call went on until the answerer stopped")
    }

    func testADoorWithoutVideoWeCanPlayGetsNoSnapshotAndNoSnapshotError() throws {
        var connectedAt: Double?
        let result = try ringingCall(["--snapshot", "DIR/{callId}.jpg"], configure: { $0.media.announcedVideoCodec = "AV1" }) { events in
            if connectedAt == nil, Self.has("media-connected", events) { connectedAt = MainContext.monotonicSeconds() }
            // What a door with video shows within it: its first frame and its snapshot.
            return connectedAt.map { MainContext.monotonicSeconds() - $0 > 2 } ?? false
        }
        XCTAssertFalse(Self.has("snapshot", result.events))
        XCTAssertFalse(result.events.contains { ($0["message"] as? String)?.contains("snapshot") ?? false }, "\(result.events)")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: result.directory).filter { $0.contains("jpg") }, [])
    }

    /// The picture decoded again: its size and the door's stamp in it.
    static func decode(_ path: String) throws -> (width: Int, height: Int, stamp: (milliseconds: Int, sequence: Int?)?) {
        let pipeline = try OwnedPipeline(launching: "filesrc location=\"\(path)\" ! jpegdec ! videoconvert ! video/x-raw,format=I420 ! appsink name=frame sync=false",
                                         name: "snapshot-check")
        defer { pipeline.release() }
        XCTAssertTrue(pipeline.start())
        let sink = try XCTUnwrap(pipeline.pipeline.element(named: "frame"))
        let sample = try XCTUnwrap(Sample.pull(from: sink, seconds: 5), "the JPEG decodes")
        let caps = try XCTUnwrap(sample.caps)
        let width = caps.int("width") ?? 0, height = caps.int("height") ?? 0
        let buffer = try XCTUnwrap(sample.buffer)
        return (width, height, FrameStamp.readBoth(buffer.pointer, width: width, height: height))
    }
}
