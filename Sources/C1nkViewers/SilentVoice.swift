import CGStreamer

/// The door's voice held back from the web page's viewers until the call is
/// accepted, as the RTSP restream holds it (`CRestream`): each packet passes
/// with its header (sequence, timestamp, SSRC, payload type, marker) and a
/// silent payload, so a viewer's stream runs on unbroken and only its
/// content changes at accept. Streaming thread; pure C calls, no state.
enum SilentVoice {
    /// An Opus frame of silence: TOC 0xF8 (CELT fullband, 20 ms, mono, one frame), then nothing to decode.
    static let opusSilence: [UInt8] = [0xF8, 0xFF, 0xFE]

    /// A new packet (the caller owns it) with `rtp`'s header and silence of
    /// `encoding` (`OPUS`, `PCMU`, `PCMA`); nil when `rtp` is not RTP.
    static func copy(of rtp: UnsafeMutablePointer<GstBuffer>, encoding: String) -> UnsafeMutablePointer<GstBuffer>? {
        var input = GstRTPBuffer()
        guard gst_rtp_buffer_map(rtp, GST_MAP_READ, &input) != 0 else { return nil }
        defer { gst_rtp_buffer_unmap(&input) }
        let opus = encoding.uppercased() == "OPUS"
        let length = opus ? UInt32(opusSilence.count) : gst_rtp_buffer_get_payload_len(&input)
        guard let copy = gst_rtp_buffer_new_allocate(length, 0, 0) else { return nil }
        var output = GstRTPBuffer()
        guard gst_rtp_buffer_map(copy, GST_MAP_WRITE, &output) != 0 else { return copy }
        gst_rtp_buffer_set_ssrc(&output, gst_rtp_buffer_get_ssrc(&input))
        gst_rtp_buffer_set_seq(&output, gst_rtp_buffer_get_seq(&input))
        gst_rtp_buffer_set_timestamp(&output, gst_rtp_buffer_get_timestamp(&input))
        gst_rtp_buffer_set_payload_type(&output, gst_rtp_buffer_get_payload_type(&input))
        gst_rtp_buffer_set_marker(&output, gst_rtp_buffer_get_marker(&input))
        if let payload = gst_rtp_buffer_get_payload(&output)?.assumingMemoryBound(to: UInt8.self) {
            if opus {
                for (index, byte) in opusSilence.enumerated() { payload[index] = byte }
            } else {
                // G.711's silence: 0xFF in µ-law, 0xD5 in A-law.
                payload.initialize(repeating: encoding.uppercased() == "PCMA" ? 0xD5 : 0xFF, count: Int(length))
            }
        }
        gst_rtp_buffer_unmap(&output)
        return copy
    }
}
