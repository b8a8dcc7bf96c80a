import CGStreamer

/// The fields of an RTP packet's fixed header the call reads from the door's
/// packets (RFC 3550 §5.1): its payload type and its SSRC.
enum RTPHeader {
    /// The payload type: the low seven bits of the second byte (the high one is the marker).
    static func payloadType(secondByte: UInt8) -> Int { Int(secondByte & 0x7f) }

    /// The SSRC: bytes 8–11, big-endian.
    static func ssrc(_ bytes: [UInt8]) -> UInt32 { bytes.reduce(UInt32(0)) { $0 << 8 | UInt32($1) } }

    /// `count` bytes from `offset` of the buffer a pad probe sees, or nil
    /// when it carries no buffer or a shorter one.
    static func bytes(of info: UnsafeMutablePointer<GstPadProbeInfo>, at offset: Int, count: Int) -> [UInt8]? {
        guard let buffer = info.pointee.data?.assumingMemoryBound(to: GstBuffer.self) else { return nil }
        var bytes = [UInt8](repeating: 0, count: count)
        return gst_buffer_extract(buffer, gsize(offset), &bytes, gsize(count)) == count ? bytes : nil
    }
}
