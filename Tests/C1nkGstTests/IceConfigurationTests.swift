import XCTest
import CGStreamer
import C1nkGLib
@testable import C1nkMedia

final class IceConfigurationTests: XCTestCase {
    func testURLsAreWrittenTheWayWebrtcbinTakesThem() {
        XCTAssertEqual(IceConfiguration.webrtcbinURL("stun:stun.l.google.com:19302"), "stun://stun.l.google.com:19302")
        XCTAssertEqual(IceConfiguration.webrtcbinURL("turn:user:pass@turn.example:3478"), "turn://user:pass@turn.example:3478")
        XCTAssertEqual(IceConfiguration.webrtcbinURL("turns://user:pass@turn.example:5349"), "turns://user:pass@turn.example:5349")
        XCTAssertEqual(IceConfiguration().stunServers, ["stun:stun.l.google.com:19302", "stun:stun1.l.google.com:19302"])
    }

    func testTurnServersAreAcceptedAndNonsenseRefused() throws {
        var ice = IceConfiguration.loopback
        ice.turnServers = ["turn://user:secret@127.0.0.1:3478"]
        XCTAssertNoThrow(try WebRTCBin(name: "t", ice: ice, latencyMilliseconds: 20, onNewStream: nil) { _ in })
        ice.turnServers = ["turn://no-credentials-here"]
        XCTAssertThrowsError(try WebRTCBin(name: "t", ice: ice, latencyMilliseconds: 20, onNewStream: nil) { _ in }) { error in
            XCTAssertTrue("\(error)".contains("TURN"), "\(error)")
        }
    }

    /// No UPnP discovery: its thread and SSDP sockets outlived calls.
    func testTheIceAgentDoesNoUPnP() throws {
        let webrtc = try WebRTCBin(name: "t", ice: .loopback, latencyMilliseconds: 20, onNewStream: nil) { _ in }
        let agent = try XCTUnwrap(GObjectReference(property: "ice-agent", of: webrtc.webrtcbin.object))
        let nice = try XCTUnwrap(agent[object: "agent"])
        XCTAssertEqual(nice[bool: "upnp"], false, "upnp is off")
    }
}
