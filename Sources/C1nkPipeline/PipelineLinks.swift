import C1nkGLib
import CGStreamer

/// Walks the links of a built pipeline (main context, before or while it runs).
package enum PipelineLinks {
    /// Elements upstream of `element` (not itself), following sink pads to
    /// their peers, stopping at (and including) elements named in `stop`.
    package static func upstream(of element: Element, stoppingAt stop: Set<String> = []) -> [Element] {
        walk(from: element, stoppingAt: stop) { current in current.sinkPads }
    }

    /// Elements downstream of `element` (not itself), stopping after `stop`;
    /// with `ownOnly`, stopping before elements that also take other inputs (a muxer).
    package static func downstream(of element: Element, stoppingAt stop: Set<String> = [],
                                   ownOnly: Bool = false) -> [Element] {
        walk(from: element, stoppingAt: stop, skipping: { ownOnly && $0.sinkPadCount > 1 }) { current in current.sourcePads }
    }

    /// Elements with no sink pads among `elements`: the sources.
    package static func sources(_ elements: [Element]) -> [Element] {
        elements.filter { $0.sinkPadCount == 0 }
    }

    /// Every element of a bin whose factory is `factory`, recursively.
    package static func elements(of bin: Bin, factory: String) -> [Element] {
        bin.elements.filter { $0.factoryName == factory }
    }

    /// Whether `object` (a message's source) is `element` or lies inside it.
    package static func isInside(_ object: UnsafeMutablePointer<GstObject>?, _ element: Element) -> Bool {
        isInside(object, element.pointer)
    }

    /// From `start`, across each pad `pads` gives to its peer's element, once
    /// per element; elements named in `stop` are listed but not crossed.
    private static func walk(from start: Element, stoppingAt stop: Set<String>,
                             skipping skip: (Element) -> Bool = { _ in false },
                             _ pads: (Element) -> [Pad]) -> [Element] {
        var result: [Element] = []
        var queue = [start]
        var seen: Set<UnsafeMutablePointer<GstElement>> = [start.pointer]
        while let current = queue.popLast() {
            for pad in pads(current) {
                guard let parent = pad.peer?.parent, !skip(parent), seen.insert(parent.pointer).inserted else { continue }
                result.append(parent)
                if !stop.contains(parent.name) { queue.append(parent) }
            }
        }
        return result
    }
}

/// The same walks on pointers, for callers that still hold elements by
/// pointer: the elements come back unowned (valid while the pipeline holds
/// them). Prefer the `Element` forms.
extension PipelineLinks {
    package static func upstream(of element: UnsafeMutablePointer<GstElement>, stoppingAt stop: Set<String> = []) -> [UnsafeMutablePointer<GstElement>] {
        upstream(of: Element(sharing: element), stoppingAt: stop).map(\.pointer)
    }

    package static func downstream(of element: UnsafeMutablePointer<GstElement>, stoppingAt stop: Set<String> = [],
                                   ownOnly: Bool = false) -> [UnsafeMutablePointer<GstElement>] {
        downstream(of: Element(sharing: element), stoppingAt: stop, ownOnly: ownOnly).map(\.pointer)
    }

    package static func sources(_ elements: [UnsafeMutablePointer<GstElement>]) -> [UnsafeMutablePointer<GstElement>] {
        elements.filter { $0.pointee.numsinkpads == 0 }
    }

    package static func elements(of bin: UnsafeMutablePointer<GstElement>, factory: String) -> [UnsafeMutablePointer<GstElement>] {
        Gst.elements(of: bin).filter { Gst.factoryName($0) == factory }
    }

    package static func isInside(_ object: UnsafeMutablePointer<GstObject>?, _ element: UnsafeMutablePointer<GstElement>) -> Bool {
        let target = PointerCast.cast(element, to: GstObject.self)
        var current = object
        while let node = current {
            if node == target { return true }
            current = node.pointee.parent
        }
        return false
    }

    /// The pads of a GList of an element (`sinkpads`, `srcpads`), unowned.
    package static func pads(_ list: UnsafeMutablePointer<GList>?) -> [UnsafeMutablePointer<GstPad>] {
        var result: [UnsafeMutablePointer<GstPad>] = []
        var node = list
        while let current = node {
            if let data = current.pointee.data { result.append(data.assumingMemoryBound(to: GstPad.self)) }
            node = current.pointee.next
        }
        return result
    }
}
