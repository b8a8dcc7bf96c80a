import C1nkGLib
import CGStreamer

/// One thing the speaker plays: a small bin inside the speaker's pipeline
/// (a ringtone, a UI sound, or the `proxysrc` end of a call's audio), linked
/// to a pad of the mixer. Removed with `remove()`, on the main context.
final class SpeakerInput {
    let name: String
    private weak var owner: SpeakerOutput?
    private var bin: UnsafeMutablePointer<GstElement>?
    private var mixerPad: UnsafeMutablePointer<GstPad>?

    init(name: String, bin: UnsafeMutablePointer<GstElement>, mixerPad: UnsafeMutablePointer<GstPad>, owner: SpeakerOutput) {
        self.name = name
        self.bin = bin
        self.mixerPad = mixerPad
        self.owner = owner
    }

    var element: UnsafeMutablePointer<GstElement>? { bin }

    /// Pending `realign` (main context).
    private var realignment: GLibTimer?

    /// Once the input has played for `seconds`, its next buffer is marked
    /// RESYNC: the mixer places it by its timestamp again and goes on from
    /// there. The mixer places an input's buffers one after another from
    /// where it put the first, so a call whose first buffers came late
    /// (the connection's start-up) would otherwise keep that delay to its
    /// end: measured, the door's voice 25–70 ms later than its timestamps
    /// for whole calls. By `seconds` the call's jitterbuffer has settled
    /// its timing (its clock-skew estimate takes the first 2 s). The mixer
    /// drops what of that buffer is already late: a few milliseconds, once.
    func realign(afterPlaying seconds: Double) {
        guard let bin, let source = gst_element_get_static_pad(bin, "src") else { return }
        defer { gst_object_unref(UnsafeMutableRawPointer(source)) }
        PadProbe.onFirstBuffer(source) { [weak self] in
            guard let self, self.bin != nil else { return }
            self.realignment = GLibTimer(after: seconds) { [weak self] in
                guard let self, let bin = self.bin, let source = gst_element_get_static_pad(bin, "src") else { return }
                defer { gst_object_unref(UnsafeMutableRawPointer(source)) }
                PadProbe.add(source, GST_PAD_PROBE_TYPE_BUFFER) { info in
                    guard let buffer = c1nk_probe_writable_buffer(info) else { return GST_PAD_PROBE_REMOVE }
                    buffer.pointee.mini_object.flags |= GST_BUFFER_FLAG_RESYNC.rawValue
                    return GST_PAD_PROBE_REMOVE
                }
            }
        }
    }

    /// Stops the bin, gives the mixer pad back and takes the bin out of the
    /// speaker's pipeline. Safe to call twice.
    func remove() {
        guard let bin else { return }
        self.bin = nil
        realignment?.cancel()
        realignment = nil
        gst_element_set_state(bin, GST_STATE_NULL)
        if let mixerPad, let mixer = gst_pad_get_parent_element(mixerPad) {
            if let source = gst_element_get_static_pad(bin, "src") {
                gst_pad_unlink(source, mixerPad)
                gst_object_unref(UnsafeMutableRawPointer(source))
            }
            gst_element_release_request_pad(mixer, mixerPad)
            gst_object_unref(UnsafeMutableRawPointer(mixer))
        }
        if let mixerPad { gst_object_unref(UnsafeMutableRawPointer(mixerPad)) }
        mixerPad = nil
        if let parent = gst_object_get_parent(UnsafeMutableRawPointer(bin).assumingMemoryBound(to: GstObject.self)) {
            gst_bin_remove(UnsafeMutableRawPointer(parent).assumingMemoryBound(to: GstBin.self), bin)
            gst_object_unref(UnsafeMutableRawPointer(parent))
        }
        gst_object_unref(UnsafeMutableRawPointer(bin))
        owner?.inputRemoved(self)
    }

    deinit { remove() }
}
