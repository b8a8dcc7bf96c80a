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
/// used on the main context; dropped when the pipeline is.
final class RecordingBranch {
    /// Elements of the branch.
    private let elements: [Element]
    /// The file's sink and the element feeding it (the muxer): closed on failure.
    private let writer: [Element]
    private var closed = false

    /// Finds the branch ending in the sink that writes `path`; nil when no
    /// sink of `pipeline` writes it.
    init?(pipeline: Bin, path: String) {
        guard let sink = pipeline.sinks.first(where: { $0.has(property: "location") && $0[string: "location"] == path }) else {
            return nil
        }
        var elements = [sink]
        var entries: [Pad] = []
        var writer = [sink]
        var pending = [sink]
        while let element = pending.popLast(), elements.count < 32 {
            for pad in PipelineLinks.pads(element.pointer.pointee.sinkpads).map({ Pad(retaining: $0) }) {
                guard let peer = pad.peer else {
                    // Fed later (webrtcbin) or never: the branch starts here.
                    entries.append(pad)
                    continue
                }
                guard let upstream = peer.parent else { continue }
                if Self.isBranchPoint(sourcePads: Int(upstream.pointer.pointee.numsrcpads), inBranch: elements.contains(upstream)) {
                    // A tee: guard its pad toward us (upstream of our pad's flushing check).
                    entries.append(peer)
                } else {
                    elements.append(upstream)
                    pending.append(upstream)
                    if element == sink { writer.append(upstream) }
                }
            }
        }
        self.elements = elements
        self.writer = writer

        var array: [UnsafeMutablePointer<GstElement>?] = elements.map(\.pointer)
        let guardBox = c1nk_branch_guard_new(pipeline.pointer, &array, guint(array.count))!
        for pad in entries { c1nk_branch_guard_add_probe(guardBox, pad.pointer) }
    }

    /// Whether the walk up from the file's sink stops at an element: one that
    /// feeds more than this branch (a `tee`), or one already in the branch.
    static func isBranchPoint(sourcePads: Int, inBranch: Bool) -> Bool { sourcePads > 1 || inBranch }

    /// The element feeding the file's sink (the muxer), when there is one.
    var muxer: Element? { writer.count > 1 ? writer[1] : nil }

    /// Whether a bus message from `source` comes from the branch.
    func contains(_ source: UnsafeMutablePointer<GstObject>?) -> Bool {
        guard source != nil else { return false }
        return elements.contains { PipelineLinks.isInside(source, $0.pointer) }
    }

    /// Closes the file as it is: the muxer and the sink stop and stay
    /// stopped whatever the pipeline does next.
    func close() {
        guard !closed else { return }
        closed = true
        for element in writer {
            element.setLockedState(true)
            element.setState(GST_STATE_NULL)
        }
    }
}
