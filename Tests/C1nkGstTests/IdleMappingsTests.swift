import Foundation
import XCTest
@testable import C1nkGLib
@testable import C1nkLocal

/// What an idle answerer maps: only what its options use. A home server
/// without screens maps no drawing library; one with screens does.
final class IdleMappingsTests: XCTestCase {
    func testWithoutScreensNoDrawingLibraryNorProxyStackIsMapped() throws {
        Log.echoToStandardError = false
        defer { Log.echoToStandardError = true }
        let (server, door) = try AnswerCommandTests.serverAndDoor { _ in }
        defer { door.stop(); server.stop() }
        let drawing = ["libpangocairo", "libcairo.so", "libpango-1.0", "libgdk_pixbuf", "libX11", "libfontconfig"]

        let headless = try answerer(server, ["--sink", "fakesink"])
        defer { headless.signal(SIGTERM); _ = headless.wait() }
        waitUntil("the answerer without screens registered", timeout: 20) { server.connectedAppIds.count == 1 }
        let headlessMaps = headless.maps
        XCTAssertTrue(headlessMaps.contains("libgstreamer"), "read the maps of the answerer")
        for library in drawing { XCTAssertFalse(headlessMaps.contains(library), "\(library) mapped without screens") }
        XCTAssertFalse(headlessMaps.contains("libproxy"), "GIO's default proxy resolver (libproxy) mapped")

        let withScreens = try answerer(server, ["--sink", "fakesink", "--screens", "on"])
        defer { withScreens.signal(SIGTERM); _ = withScreens.wait() }
        waitUntil("the answerer with screens registered", timeout: 20) { server.connectedAppIds.count == 2 }
        XCTAssertTrue(withScreens.maps.contains("libpangocairo"), "the screens opened cairo and Pango")
    }

    private func answerer(_ server: SignalServer, _ extra: [String]) throws -> AnswerCommandTests.Command {
        let home = temporaryDirectory()
        return try AnswerCommandTests.Command("c1nk-gst-answer", [
            "--server", server.url, "--device-id-file", home + "/device-id", "--stun", "none", "--ice-local-ip", "127.0.0.1",
            "--audio-sink", "fakesink", "--audio-source", "audiotestsrc is-live=true", "--ringtone", "none"] + extra)
    }
}
