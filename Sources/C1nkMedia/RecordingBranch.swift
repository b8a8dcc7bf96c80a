import C1nkGLib
import C1nkPipeline
import CGStreamer

/// The part of a call pipeline that only writes the recording: from where it
/// leaves the shared path (after a `tee`, or the door's input when nothing
/// else is done with it) down to the file's sink.
///
/// A failure inside it (disk full, a write error) ends the recording, not the
/// call: a `C1nkBranchGuard` drops buffers at the branch's entry from the
/// moment the error is posted, so no error flow return reaches the `tee` and
/// what the user watches and hears goes on. Built before the pipeline plays;
/// used on the main context.
final class RecordingBranch {
    /// Elements of the branch (not referenced: the pipeline owns them).
    private let elements: [UnsafeMutablePointer<GstElement>]
    /// The file's sink and the element feeding it (the muxer): closed on failure.
    private let writer: [UnsafeMutablePointer<GstElement>]
    private var closed = false

    /// Finds the branch ending in the sink that writes `path`; nil when no
    /// sink of `pipeline` writes it.
    init?(pipeline: UnsafeMutablePointer<GstElement>, path: String) {
        guard let sink = Gst.sinks(of: pipeline).first(where: {
            ObjectProperty.has(UnsafeMutableRawPointer($0), "location")
                && ObjectProperty.string(UnsafeMutableRawPointer($0), "location") == path
        }) else { return nil }

        var elements = [sink]
        var entries: [UnsafeMutablePointer<GstPad>] = []
        var writer = [sink]
        var pending = [sink]
        while let element = pending.popLast(), elements.count < 32 {
            for pad in PipelineLinks.pads(element.pointee.sinkpads) {
                guard let peer = gst_pad_get_peer(pad) else {
                    // Fed later (webrtcbin) or never: the branch starts here.
                    entries.append(gst_object_ref(UnsafeMutableRawPointer(pad)).assumingMemoryBound(to: GstPad.self))
                    continue
                }
                guard let upstream = gst_pad_get_parent_element(peer) else {
                    gst_object_unref(UnsafeMutableRawPointer(peer))
                    continue
                }
                defer { gst_object_unref(UnsafeMutableRawPointer(upstream)) }
                if upstream.pointee.numsrcpads > 1 || elements.contains(upstream) {
                    // A tee: guard its pad toward us (upstream of our pad's flushing check).
                    entries.append(peer)
                } else {
                    gst_object_unref(UnsafeMutableRawPointer(peer))
                    elements.append(upstream)
                    pending.append(upstream)
                    if element == sink { writer.append(upstream) }
                }
            }
        }
        self.elements = elements
        self.writer = writer

        var array: [UnsafeMutablePointer<GstElement>?] = elements
        let guardBox = c1nk_branch_guard_new(pipeline, &array, guint(array.count))!
        for pad in entries {
            c1nk_branch_guard_add_probe(guardBox, pad)
            gst_object_unref(UnsafeMutableRawPointer(pad))
        }
    }

    /// The element feeding the file's sink (the muxer), when there is one.
    var muxer: UnsafeMutablePointer<GstElement>? { writer.count > 1 ? writer[1] : nil }

    /// Whether a bus message from `source` comes from the branch.
    func contains(_ source: UnsafeMutablePointer<GstObject>?) -> Bool {
        guard let source else { return false }
        return elements.contains { element in
            let object = UnsafeMutableRawPointer(element).assumingMemoryBound(to: GstObject.self)
            return object == source || gst_object_has_as_ancestor(source, object) != 0
        }
    }

    /// Closes the file as it is: the muxer and the sink stop and stay
    /// stopped whatever the pipeline does next.
    func close() {
        guard !closed else { return }
        closed = true
        for element in writer {
            gst_element_set_locked_state(element, 1)
            gst_element_set_state(element, GST_STATE_NULL)
        }
    }
}
