import C1nkGLib
import CGStreamer

/// The sinks fed from a pad, found by following links downstream: through
/// plain elements, tees, and into and out of bins (a `--sink` description is
/// a bin whose real sink sits inside it).
package enum DownstreamSinks {
    /// Sinks reachable from `pad` (a source pad), each with a reference of its own.
    package static func from(_ pad: Pad) -> [Element] {
        var found: [Element] = []
        var seen: Set<UnsafeMutablePointer<GstPad>> = []
        visit(pad, &found, &seen)
        return found
    }

    /// The same from a pad's pointer; the sinks come back unowned (valid
    /// while the pipeline holds them). Prefer the `Pad` form.
    package static func from(_ pad: UnsafeMutablePointer<GstPad>) -> [UnsafeMutablePointer<GstElement>] {
        from(Pad(retaining: pad)).map(\.pointer)
    }

    /// A sink is an element flagged as one that is not a bin (a bin with a
    /// sink inside says it is one too).
    static func isSink(_ element: Element) -> Bool { element.isSinkFlagged && !element.isBin }

    private static func visit(_ source: Pad, _ found: inout [Element], _ seen: inout Set<UnsafeMutablePointer<GstPad>>) {
        guard seen.insert(source.pointer).inserted, let peer = source.peer else { return }
        var sinkPad = peer
        if peer.isGhost {
            // Into a bin: continue at the element inside.
            guard let target = peer.ghostTarget else { return }
            sinkPad = target
        } else if peer.isProxy, let outward = peer.internalPad {
            // Out of a bin through its source ghost pad.
            visit(outward, &found, &seen)
            return
        }
        guard let element = sinkPad.parent else { return }
        if sinkPad.isGhost { return } // a ghost without target
        if isSink(element), !found.contains(element) { found.append(element) }
        for pad in element.sourcePads { visit(pad, &found, &seen) }
    }
}
