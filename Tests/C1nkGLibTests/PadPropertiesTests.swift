import C1nkGLib
import CGStreamer
import XCTest

final class PadPropertiesTests: XCTestCase {
    override func setUp() { GStreamer.initialize() }

    func testACompositorPadsSettingsReadAndWriteByType() throws {
        let compositor = try XCTUnwrap(Element.make("compositor"))
        let pad = try XCTUnwrap(compositor.requestPad("sink_%u"))
        defer { compositor.releaseRequestPad(pad) }
        pad[double: "alpha"] = 0.55
        pad[int: "zorder"] = 3            // guint
        pad[int: "width"] = 640           // gint
        pad.set("sizing-policy", fromString: "keep-aspect-ratio")
        pad[int: "max-last-buffer-repeat"] = 1_000_000_000 // guint64
        XCTAssertEqual(pad[double: "alpha"], 0.55)
        XCTAssertEqual(pad[int: "zorder"], 3)
        XCTAssertEqual(pad[int: "width"], 640)
        XCTAssertEqual(pad[int: "sizing-policy"], 1)
        XCTAssertEqual(pad[int: "max-last-buffer-repeat"], 1_000_000_000)
        XCTAssertTrue(pad.has(property: "alpha"))
        XCTAssertFalse(pad.has(property: "no-such-property"))
        XCTAssertEqual(pad[double: "no-such-property"], 0)
    }
}
