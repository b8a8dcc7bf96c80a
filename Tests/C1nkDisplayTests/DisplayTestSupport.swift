import C1nkGLib
import CGStreamer
import Foundation
import XCTest
@testable import C1nkDisplay

// Small helpers of the display's tests (C1nkGstTests has its own copies of
// the first two; this target needs nothing else of that one).

/// Waits on the GLib main context until `condition` holds; fails the test after `timeout` seconds.
@discardableResult
func waitUntil(_ what: String, timeout: Double = 10, file: StaticString = #filePath, line: UInt = #line,
               _ condition: () -> Bool) -> Bool {
    let ok = MainContext.run(timeout: timeout, until: condition)
    if !ok { XCTFail("timed out after \(timeout) s waiting for \(what)", file: file, line: line) }
    return ok
}

func temporaryDirectory() -> String {
    let path = NSTemporaryDirectory() + "c1nk-test-" + UUID().uuidString.prefix(8)
    try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

/// An RGB frame read back from the display, for pixel facts.
struct RGBImage {
    let width: Int
    let height: Int
    let bytes: [UInt8]

    /// The display's last frame, or nil when its sink keeps none.
    init?(_ display: WallDisplay) {
        guard let raw = display.pipeline.lastFrame(as: "video/x-raw,format=RGB,pixel-aspect-ratio=1/1") else { return nil }
        self.init(width: display.pipeline.width, height: display.pipeline.height, bytes: [UInt8](raw))
    }

    init(width: Int, height: Int, bytes: [UInt8]) {
        self.width = width
        self.height = height
        self.bytes = bytes
    }

    func pixel(_ x: Int, _ y: Int) -> (Int, Int, Int) {
        let stride = (width * 3 + 3) & ~3
        let i = y * stride + x * 3
        return (Int(bytes[i]), Int(bytes[i + 1]), Int(bytes[i + 2]))
    }

    /// The share of pixels within ±6 per channel of `color` (in `rect`).
    func fraction(of color: DisplayColor, in rect: ScreenLayout.Rect? = nil) -> Double {
        let r = rect ?? .init(x: 0, y: 0, width: Double(width), height: Double(height))
        let (cr, cg, cb) = color.rgb
        var hits = 0, total = 0
        for y in stride(from: max(0, Int(r.y)), to: min(height, Int(r.maxY)), by: 2) {
            for x in stride(from: max(0, Int(r.x)), to: min(width, Int(r.maxX)), by: 2) {
                let p = pixel(x, y)
                total += 1
                if abs(p.0 - Int(cr)) <= 6 && abs(p.1 - Int(cg)) <= 6 && abs(p.2 - Int(cb)) <= 6 { hits += 1 }
            }
        }
        return total == 0 ? 0 : Double(hits) / Double(total)
    }
}

/// A count kept from a streaming thread, read on the test's.
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func increment() { lock.lock(); count += 1; lock.unlock() }
    var value: Int { lock.lock(); defer { lock.unlock() }; return count }
}

/// Counts the buffers passing `pad` from now on, until the counter's probe is removed.
final class BufferCount {
    private let pad: Pad
    private let counter = Counter()
    private var probe: gulong = 0

    init(_ pad: Pad) {
        self.pad = pad
        let counter = self.counter
        probe = pad.addProbe(GST_PAD_PROBE_TYPE_BUFFER) { _ in
            counter.increment()
            return GST_PAD_PROBE_OK
        }
    }

    var value: Int { counter.value }

    deinit { pad.removeProbe(probe) }
}
