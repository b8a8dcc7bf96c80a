import C1nkGLib
import CGStreamer
import XCTest

final class ElementTests: XCTestCase {
    override func setUp() { GStreamer.initialize() }

    private func referenceCount(_ element: Element) -> UInt32 {
        element.pointer.withMemoryRebound(to: GObject.self, capacity: 1) { $0.pointee.ref_count }
    }

    func testTypedPropertiesReadAndWriteAnyIntegerType() throws {
        let queue = try XCTUnwrap(Element.make("queue", name: "q"))
        queue[int: "max-size-buffers"] = 7          // guint
        queue[int: "max-size-time"] = 5_000_000      // guint64
        queue[bool: "flush-on-eos"] = true
        XCTAssertEqual(queue[int: "max-size-buffers"], 7)
        XCTAssertEqual(queue[int: "max-size-time"], 5_000_000)
        XCTAssertTrue(queue[bool: "flush-on-eos"])
        queue.set("leaky", fromString: "downstream")
        XCTAssertEqual(queue[int: "leaky"], 2)
        XCTAssertEqual(queue.name, "q")
        XCTAssertEqual(queue.factoryName, "queue")
        let volume = try XCTUnwrap(Element.make("volume"))
        volume[double: "volume"] = 0.25
        XCTAssertEqual(volume[double: "volume"], 0.25)
        XCTAssertFalse(volume.has(property: "no-such-property"))
        XCTAssertEqual(volume[int: "no-such-property"], 0)
    }

    func testABinHoldsItsOwnReferencesAndFindsByName() throws {
        let bin = Bin(named: "b")
        let source = try XCTUnwrap(Element.make("fakesrc", name: "src"))
        XCTAssertEqual(referenceCount(source), 1)
        XCTAssertTrue(bin.add(source))
        XCTAssertEqual(referenceCount(source), 2)
        do {
            let found = try XCTUnwrap(bin.element(named: "src"))
            XCTAssertEqual(found, source)
            XCTAssertEqual(referenceCount(source), 3)
        }
        XCTAssertEqual(referenceCount(source), 2)
        XCTAssertEqual(bin.elements.count, 1)
        XCTAssertEqual(source.parent?.name, "b")
        XCTAssertNotNil(source.asBin == nil ? source : nil)
        XCTAssertNotNil(bin.asBin)
    }

    func testPadsAndCapsOwnTheirReferences() throws {
        let filter = try XCTUnwrap(Element.make("capsfilter"))
        let caps = try XCTUnwrap(Caps("video/x-raw,width=640,format=I420"))
        filter[caps: "caps"] = caps
        let read = try XCTUnwrap(filter[caps: "caps"])
        XCTAssertEqual(read.mediaType(), "video/x-raw")
        XCTAssertEqual(read.int("width"), 640)
        XCTAssertEqual(read.string("format"), "I420")
        let sink = try XCTUnwrap(filter.staticPad("sink"))
        XCTAssertEqual(sink.name, "sink")
        XCTAssertEqual(sink.parent, filter)
        XCTAssertNil(sink.peer)
        XCTAssertNil(Caps("not caps at all ((("))
    }

    func testABufferMapsItsBytes() {
        let buffer = Buffer(copying: [1, 2, 3])
        buffer.pts = 42
        XCTAssertEqual(buffer.size, 3)
        XCTAssertEqual(buffer.bytes, [1, 2, 3])
        XCTAssertEqual(buffer.pts, 42)
        XCTAssertNil(buffer.duration)
    }
}
