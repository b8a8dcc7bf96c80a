import C1nkGLib
import C1nkPipeline
import CGStreamer

/// Gives every buffer that enters a muxer a timestamp.
///
/// A depayloader may push a frame with neither PTS nor DTS (rtph264depay
/// when one RTP packet closes an access unit and carries the next). mp4mux
/// then stops taking that pad: its queue fills, the `tee` before it blocks,
/// and the video of the whole call stops while the file stays too short to
/// leave the sink's write buffer (0 bytes after a kill). The C probe
/// (`c1nk_untimed_stamp_add_probe`, per buffer, no Swift) stamps such a
/// buffer with the end of the previous one on the same pad.
enum UntimedBufferStamp {
    /// Installs the probe on every sink pad `element` has now (a muxer's pads
    /// are requested when the pipeline text is parsed).
    static func install(on element: Element) {
        for pad in PipelineLinks.pads(element.pointer.pointee.sinkpads) {
            _ = c1nk_untimed_stamp_add_probe(pad)
        }
    }
}
