import CGStreamer
import Foundation

/// The pads that receive the door's media, by medium ("video", "audio"):
/// written on the main context before the answer, read on the streaming
/// thread that announces a receiving pad.
final class PadTable: @unchecked Sendable {
    private let lock = NSLock()
    private var pads: [String: UnsafeMutablePointer<GstPad>] = [:]

    /// The table reaches the streaming thread through webrtcbin's signal
    /// emission (GLib locks, futexes ThreadSanitizer cannot see): declared
    /// here, and acquired before each use.
    init() { c1nk_tsan_release(Unmanaged.passUnretained(self).toOpaque()) }

    private func acquire() { c1nk_tsan_acquire(Unmanaged.passUnretained(self).toOpaque()) }

    func set(_ media: String, _ pad: UnsafeMutablePointer<GstPad>?) {
        acquire()
        lock.lock()
        defer { lock.unlock() }
        if let old = pads[media] { gst_object_unref(UnsafeMutableRawPointer(old)) }
        pads[media] = pad
    }

    func pad(for media: String) -> UnsafeMutablePointer<GstPad>? {
        acquire()
        lock.lock()
        defer { lock.unlock() }
        return pads[media]
    }

    func all() -> [UnsafeMutablePointer<GstPad>] {
        acquire()
        lock.lock()
        defer { lock.unlock() }
        return Array(pads.values)
    }

    deinit { pads.values.forEach { gst_object_unref(UnsafeMutableRawPointer($0)) } }
}
