import C1nkGLib
import CGStreamer
import Foundation

/// The pads that receive the door's media, by medium ("video", "audio"):
/// written on the main context before the answer, read on the streaming
/// thread that announces a receiving pad. The table holds a reference to
/// each pad; a pad replaced or the table released drops it.
package final class PadTable: @unchecked Sendable {
    private let lock = NSLock()
    private var pads: [String: Pad] = [:]

    /// The table reaches the streaming thread through webrtcbin's signal
    /// emission (GLib locks, futexes ThreadSanitizer cannot see): declared
    /// here, and acquired before each use.
    package init() { c1nk_tsan_release(Unmanaged.passUnretained(self).toOpaque()) }

    private func acquire() { c1nk_tsan_acquire(Unmanaged.passUnretained(self).toOpaque()) }

    package func set(_ media: String, _ pad: Pad?) {
        acquire()
        lock.lock()
        defer { lock.unlock() }
        pads[media] = pad
    }

    /// Takes the caller's reference to `pad` (`gst_element_get_static_pad`'s).
    package func set(_ media: String, _ pad: UnsafeMutablePointer<GstPad>?) {
        set(media, pad.map { Pad(adopting: $0) })
    }

    /// The pad for `media` (the table's own `Pad`: valid while either holds it).
    package subscript(media: String) -> Pad? {
        acquire()
        lock.lock()
        defer { lock.unlock() }
        return pads[media]
    }

    /// Every pad (the table's own `Pad`s).
    package var allPads: [Pad] {
        acquire()
        lock.lock()
        defer { lock.unlock() }
        return Array(pads.values)
    }

    /// The pad for `media` as a pointer the table keeps valid, for callers
    /// that still hold pads by pointer; prefer the subscript.
    package func pad(for media: String) -> UnsafeMutablePointer<GstPad>? { self[media]?.pointer }

    /// Every pad as a pointer the table keeps valid; prefer `allPads`.
    package func all() -> [UnsafeMutablePointer<GstPad>] { allPads.map(\.pointer) }
}
