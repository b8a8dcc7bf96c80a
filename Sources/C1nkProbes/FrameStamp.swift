import C1nkGLib
import CGStreamer

/// A time stamp drawn into a video frame's pixels, to measure glass-to-glass
/// latency the way camera-to-screen latency is measured: the sender writes
/// its capture time as a row of wide black and white blocks, the receiver
/// reads it back after decoding. Wide, flat blocks survive lossy coding.
/// Both ends must share a clock: this measures on one machine (loopback).
///
/// Layout: 26 blocks across the frame, 16 rows high, 32 rows above the
/// bottom edge: two marker blocks (white, black), then 24 bits of the
/// monotonic clock in milliseconds, most significant first. A second row
/// the same way, 24 rows higher, holds the frame's sequence number, so a
/// receiver knows which frame it shows and which it never showed.
public enum FrameStamp {
    static let bits = 24
    static let blocks = bits + 2
    static let mask = (1 << bits) - 1

    /// Milliseconds of the monotonic clock (shared by all processes), wrapped to 24 bits.
    public static func nowMilliseconds() -> Int { Int(g_get_monotonic_time() / 1000) & mask }

    /// Writes `milliseconds` into the luma plane of a frame.
    static func write(_ milliseconds: Int, sequence: Int? = nil, luma: UnsafeMutablePointer<UInt8>, stride: Int, width: Int, height: Int) {
        guard let (top, blockWidth) = geometry(width: width, height: height) else { return }
        writeRow(milliseconds, top: top, blockWidth: blockWidth, luma: luma, stride: stride)
        if let sequence { writeRow(sequence & mask, top: top - sequenceOffset, blockWidth: blockWidth, luma: luma, stride: stride) }
    }

    /// Rows between the time row and the sequence row above it.
    static let sequenceOffset = 24

    private static func writeRow(_ milliseconds: Int, top: Int, blockWidth: Int, luma: UnsafeMutablePointer<UInt8>, stride: Int) {
        for block in 0..<blocks {
            let one: Bool
            switch block {
            case 0: one = true
            case 1: one = false
            default: one = (milliseconds >> (bits - 1 - (block - 2))) & 1 == 1
            }
            let value: UInt8 = one ? 235 : 16
            for row in top..<(top + 16) {
                (luma + row * stride + block * blockWidth).update(repeating: value, count: blockWidth)
            }
        }
    }

    /// Reads a stamp back; nil when the markers are not there.
    static func read(luma: UnsafePointer<UInt8>, stride: Int, width: Int, height: Int, row: Int = 0) -> Int? {
        guard let (timeTop, blockWidth) = geometry(width: width, height: height) else { return nil }
        let top = timeTop - row * sequenceOffset
        func bit(_ block: Int) -> Bool {
            // The middle of the block, away from edges blurred by coding.
            var sum = 0
            let x0 = block * blockWidth + blockWidth / 2 - 2
            for row in (top + 6)..<(top + 10) {
                for x in x0..<(x0 + 4) { sum += Int(luma[row * stride + x]) }
            }
            return sum / 16 > 128
        }
        guard bit(0), !bit(1) else { return nil }
        var value = 0
        for block in 2..<blocks { value = (value << 1) | (bit(block) ? 1 : 0) }
        return value
    }

    /// Stamps one frame whose luma plane is `luma` (the `c1nkstamp` element).
    public static func stamp(luma: UnsafeMutablePointer<UInt8>, stride: Int, width: Int, height: Int, sequence: Int) {
        write(nowMilliseconds(), sequence: sequence, luma: luma, stride: stride, width: width, height: height)
    }

    /// Reads time and sequence number from a frame's luma plane (the
    /// `c1nklatency` element); nil when the frame carries no stamp.
    public static func readStamp(luma: UnsafePointer<UInt8>, stride: Int, width: Int, height: Int) -> (milliseconds: Int, sequence: Int?)? {
        guard let time = read(luma: luma, stride: stride, width: width, height: height) else { return nil }
        return (time, read(luma: luma, stride: stride, width: width, height: height, row: 1))
    }

    /// Milliseconds from a stamp to now, or nil if it is not plausible.
    public static func age(of stamp: Int) -> Double? {
        let age = (nowMilliseconds() - stamp) & mask
        return age < 10_000 ? Double(age) : nil
    }

    private static func geometry(width: Int, height: Int) -> (top: Int, blockWidth: Int)? {
        let blockWidth = width / (blocks + 2)
        guard blockWidth >= 8, height >= 64 else { return nil }
        return (height - 32, blockWidth)
    }

    /// Stamps every buffer passing `pad` (raw video whose first plane is
    /// 8-bit luma: I420, YV12, NV12) with the current time. For the simulated
    /// door's camera; `record` keeps when each sequence number was drawn.
    package static func stampFrames(on pad: Pad, width: Int, height: Int, record: StampedFrames? = nil) {
        stampFrames(on: pad.pointer, width: width, height: height, record: record)
    }

    /// The same on a pad held by pointer; prefer the `Pad` form.
    package static func stampFrames(on pad: UnsafeMutablePointer<GstPad>, width: Int, height: Int, record: StampedFrames? = nil) {
        var sequence = 0
        PadProbe.add(pad, GST_PAD_PROBE_TYPE_BUFFER) { info in
            sequence += 1
            let now = Int(g_get_monotonic_time())
            record?.record(atMicroseconds: now)
            guard let buffer = c1nk_probe_writable_buffer(info) else { return GST_PAD_PROBE_OK }
            let (offset, stride) = lumaLayout(buffer, width: width)
            var map = GstMapInfo()
            guard gst_buffer_map(buffer, &map, GST_MAP_WRITE) != 0 else { return GST_PAD_PROBE_OK }
            write((now / 1000) & mask, sequence: sequence, luma: map.data + offset, stride: stride, width: width, height: height)
            gst_buffer_unmap(buffer, &map)
            return GST_PAD_PROBE_OK
        }
    }

    /// Reads the stamp of a decoded frame in `buffer`.
    package static func read(_ buffer: UnsafeMutablePointer<GstBuffer>, width: Int, height: Int) -> Int? {
        readBoth(buffer, width: width, height: height)?.milliseconds
    }

    /// Reads time and sequence number; the sequence is nil in frames of a
    /// sender that writes only the time.
    package static func readBoth(_ buffer: UnsafeMutablePointer<GstBuffer>, width: Int, height: Int) -> (milliseconds: Int, sequence: Int?)? {
        let (offset, stride) = lumaLayout(buffer, width: width)
        var map = GstMapInfo()
        guard gst_buffer_map(buffer, &map, GST_MAP_READ) != 0 else { return nil }
        defer { gst_buffer_unmap(buffer, &map) }
        guard map.size >= offset + stride * height else { return nil }
        return readStamp(luma: map.data + offset, stride: stride, width: width, height: height)
    }

    /// Offset and stride of the luma plane: from the video meta when the
    /// producer padded its rows, else the default 4-byte aligned stride.
    private static func lumaLayout(_ buffer: UnsafeMutablePointer<GstBuffer>, width: Int) -> (Int, Int) {
        if let meta = c1nk_buffer_video_meta(buffer) {
            return (Int(meta.pointee.offset.0), Int(meta.pointee.stride.0))
        }
        return (0, (width + 3) & ~3)
    }
}
