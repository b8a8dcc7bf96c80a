import C1nkGLib
import CGStreamer
import FoundationEssentials

/// The pads that receive the door's media, by medium ("video", "audio"):
/// written on the main context before the answer, read on the streaming
/// thread that announces a receiving pad.
package final class PadTable: @unchecked Sendable {
    private let lock = ThreadLock()
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

    package func pad(for media: String) -> Pad? {
        acquire()
        lock.lock()
        defer { lock.unlock() }
        return pads[media]
    }

    package func all() -> [Pad] {
        acquire()
        lock.lock()
        defer { lock.unlock() }
        return Array(pads.values)
    }
}
