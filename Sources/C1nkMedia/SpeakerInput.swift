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

    /// Stops the bin, gives the mixer pad back and takes the bin out of the
    /// speaker's pipeline. Safe to call twice.
    func remove() {
        guard let bin else { return }
        self.bin = nil
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
