import CGStreamer
import Foundation

/// The pads that receive the door's media, by medium ("video", "audio"):
/// written on the main context before the answer, read on the streaming
/// thread that announces a receiving pad.
final class PadTable: @unchecked Sendable {
    private let lock = NSLock()
    private var pads: [String: UnsafeMutablePointer<GstPad>] = [:]

    func set(_ media: String, _ pad: UnsafeMutablePointer<GstPad>?) {
        lock.lock()
        defer { lock.unlock() }
        if let old = pads[media] { gst_object_unref(UnsafeMutableRawPointer(old)) }
        pads[media] = pad
    }

    func pad(for media: String) -> UnsafeMutablePointer<GstPad>? {
        lock.lock()
        defer { lock.unlock() }
        return pads[media]
    }

    func all() -> [UnsafeMutablePointer<GstPad>] {
        lock.lock()
        defer { lock.unlock() }
        return Array(pads.values)
    }

    deinit { pads.values.forEach { gst_object_unref(UnsafeMutableRawPointer($0)) } }
}
