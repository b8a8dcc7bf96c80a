import C1nkGLib
import CGStreamer

/// Walks the links of a built pipeline (main context, before or while it runs).
enum PipelineLinks {
    /// Elements upstream of `element` (not itself), following sink pads to
    /// their peers, stopping at (and including) elements named in `stop`.
    /// Unowned pointers: valid while the pipeline holds the elements.
    static func upstream(of element: UnsafeMutablePointer<GstElement>, stoppingAt stop: Set<String> = []) -> [UnsafeMutablePointer<GstElement>] {
        var result: [UnsafeMutablePointer<GstElement>] = []
        var queue = [element]
        var seen: Set<UnsafeMutableRawPointer> = [UnsafeMutableRawPointer(element)]
        while let current = queue.popLast() {
            for pad in pads(current.pointee.sinkpads) {
                guard let peer = gst_pad_get_peer(pad) else { continue }
                defer { gst_object_unref(UnsafeMutableRawPointer(peer)) }
                guard let parent = gst_pad_get_parent_element(peer) else { continue }
                gst_object_unref(UnsafeMutableRawPointer(parent)) // the pipeline holds it
                guard seen.insert(UnsafeMutableRawPointer(parent)).inserted else { continue }
                result.append(parent)
                if !stop.contains(Gst.name(parent)) { queue.append(parent) }
            }
        }
        return result
    }

    /// Elements downstream of `element` (not itself), stopping after `stop`;
    /// with `ownOnly`, stopping before elements that also take other inputs (a muxer).
    static func downstream(of element: UnsafeMutablePointer<GstElement>, stoppingAt stop: Set<String> = [],
                           ownOnly: Bool = false) -> [UnsafeMutablePointer<GstElement>] {
        var result: [UnsafeMutablePointer<GstElement>] = []
        var queue = [element]
        var seen: Set<UnsafeMutableRawPointer> = [UnsafeMutableRawPointer(element)]
        while let current = queue.popLast() {
            for pad in pads(current.pointee.srcpads) {
                guard let peer = gst_pad_get_peer(pad) else { continue }
                defer { gst_object_unref(UnsafeMutableRawPointer(peer)) }
                guard let parent = gst_pad_get_parent_element(peer) else { continue }
                gst_object_unref(UnsafeMutableRawPointer(parent))
                if ownOnly && parent.pointee.numsinkpads > 1 { continue }
                guard seen.insert(UnsafeMutableRawPointer(parent)).inserted else { continue }
                result.append(parent)
                if !stop.contains(Gst.name(parent)) { queue.append(parent) }
            }
        }
        return result
    }

    /// Elements with no sink pads among `elements`: the sources.
    static func sources(_ elements: [UnsafeMutablePointer<GstElement>]) -> [UnsafeMutablePointer<GstElement>] {
        elements.filter { $0.pointee.numsinkpads == 0 }
    }

    /// Every element of a bin whose factory is `factory`, recursively (unowned).
    static func elements(of bin: UnsafeMutablePointer<GstElement>, factory: String) -> [UnsafeMutablePointer<GstElement>] {
        Gst.elements(of: bin).filter { Gst.factoryName($0) == factory }
    }

    /// Whether `object` is `element` or lies inside it.
    static func isInside(_ object: UnsafeMutablePointer<GstObject>?, _ element: UnsafeMutablePointer<GstElement>) -> Bool {
        var current = object.map { UnsafeMutableRawPointer($0) }
        while let node = current {
            if node == UnsafeMutableRawPointer(element) { return true }
            current = node.assumingMemoryBound(to: GstObject.self).pointee.parent.map { UnsafeMutableRawPointer($0) }
        }
        return false
    }

    /// The pads of a GList of an element (`sinkpads`, `srcpads`), unowned.
    static func pads(_ list: UnsafeMutablePointer<GList>?) -> [UnsafeMutablePointer<GstPad>] {
        var result: [UnsafeMutablePointer<GstPad>] = []
        var node = list
        while let current = node {
            if let data = current.pointee.data { result.append(data.assumingMemoryBound(to: GstPad.self)) }
            node = current.pointee.next
        }
        return result
    }
}
