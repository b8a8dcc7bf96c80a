import C1nkGLib
import C1nkMedia
import C1nkProbes
import CGStreamer
import CGstC1nk
import Glibc

// The plugin's C entry points (Sources/CGstC1nk/swift-entry.h): the one place
// where the C elements' pointers reach Swift. Each becomes a `PluginElement`
// before anything else sees it.

/// A c1nkdoorbin or c1nklatency element as its C code hands it over:
/// borrowed. The element owns the Swift state made for it (a `DoorbinCore`
/// from READY to NULL, a `LatencyMeter` while it streams), so that state
/// holds no reference back; the C side keeps the element alive around each call.
struct PluginElement: Hashable, @unchecked Sendable {
    fileprivate let pointer: UnsafeMutableRawPointer

    /// A string property; nil when unset or empty.
    func string(_ name: String) -> String? {
        guard let value = c1nk_object_get_string(pointer, name) else { return nil }
        defer { g_free(value) }
        let text = String(cString: value)
        return text.isEmpty ? nil : text
    }

    func int(_ name: String) -> Int { Int(c1nk_object_get_int(pointer, name)) }

    func double(_ name: String) -> Double { c1nk_plugin_object_get_double(pointer, name) }

    /// Posts an element message with `structure` (taken) on the element's bus.
    func post(_ structure: MessageStructure) { c1nk_plugin_post_element_message(pointer, structure.pointer) }

    /// c1nkdoorbin: the `door-name` property, read-only to applications.
    func setDoorName(_ name: String) { c1nk_doorbin_set_door_name(pointer, name) }

    /// c1nkdoorbin: emits one of its signals with up to two string arguments.
    func emit(_ signal: String, _ first: String?, _ second: String?) { c1nk_doorbin_emit(pointer, signal, first, second) }
}

/// The `GstStructure` of an element message, filled field by field; posting
/// it (`PluginElement.post`) hands it to the message.
struct MessageStructure {
    fileprivate let pointer: UnsafeMutableRawPointer

    init(named name: String) { pointer = c1nk_plugin_structure_new(name) }

    func set(_ field: String, _ value: String) { c1nk_plugin_structure_set_string(pointer, field, value) }
    func set(_ field: String, _ value: Int64) { c1nk_plugin_structure_set_int64(pointer, field, value) }
    func set(_ field: String, _ value: Double) { c1nk_plugin_structure_set_double(pointer, field, value) }
    func set(_ field: String, _ value: Bool) { c1nk_plugin_structure_set_boolean(pointer, field, value ? 1 : 0) }
}

/// The running cores by element; touched on the plugin's context thread only.
enum Doorbins {
    nonisolated(unsafe) static var cores: [PluginElement: DoorbinCore] = [:]
}

/// NULL → READY: reads the properties (here, so that a bad one fails the
/// change at once) and starts the core on the context thread.
@_cdecl("c1nk_swift_doorbin_start")
func c1nkDoorbinStart(_ pointer: UnsafeMutableRawPointer, _ video: UnsafePointer<CChar>, _ audio: UnsafePointer<CChar>,
                      _ mic: UnsafePointer<CChar>, _ problem: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Int32 {
    let element = PluginElement(pointer: pointer)
    let channels = DoorbinCore.Channels(video: String(cString: video), audio: String(cString: audio), mic: String(cString: mic))
    do {
        let settings = try DoorbinSettings(reading: element)
        try PluginContext.sync {
            Doorbins.cores[element] = try DoorbinCore(element: element, settings: settings, channels: channels)
        }
        return 1
    } catch {
        problem.pointee = g_strdup("\(error)")
        return 0
    }
}

/// READY → NULL: hangs up a call in progress and waits until the door was told.
@_cdecl("c1nk_swift_doorbin_stop")
func c1nkDoorbinStop(_ pointer: UnsafeMutableRawPointer) {
    let element = PluginElement(pointer: pointer)
    let fromOurOwnHandler = PluginContext.isContextThread
    try? PluginContext.sync {
        guard let core = Doorbins.cores.removeValue(forKey: element) else { return }
        core.stop()
        // Called from one of our own signal handlers, the core's code is still on the
        // stack: it is released on a later iteration, not in the middle of it. Otherwise
        // it is released here, before the element reaches NULL.
        if fromOurOwnHandler { MainContext.post { withExtendedLifetime(core) {} } }
    }
}

/// An action signal, performed on the context thread.
@_cdecl("c1nk_swift_doorbin_command")
func c1nkDoorbinCommand(_ pointer: UnsafeMutableRawPointer, _ command: UnsafePointer<CChar>) {
    let element = PluginElement(pointer: pointer)
    let word = String(cString: command)
    PluginContext.post {
        guard let core = Doorbins.cores[element] else {
            Log.plugin.warning("c1nkdoorbin: \(word) ignored: the element is not started (set it to READY or PLAYING)")
            return
        }
        core.command(word)
    }
}

/// c1nklatency, per frame on its streaming thread: the element's meter is made at its first frame.
@_cdecl("c1nk_swift_latency_frame")
func c1nkLatencyFrame(_ pointer: UnsafeMutableRawPointer, _ meter: UnsafeMutablePointer<UnsafeMutableRawPointer?>,
                      _ luma: UnsafePointer<UInt8>, _ stride: Int32, _ width: Int32, _ height: Int32, _ intervalMs: UInt32) {
    if meter.pointee == nil { meter.pointee = Unmanaged.passRetained(LatencyMeter()).toOpaque() }
    Unmanaged<LatencyMeter>.fromOpaque(meter.pointee!).takeUnretainedValue()
        .frame(PluginElement(pointer: pointer), luma: luma, stride: Int(stride), width: Int(width), height: Int(height),
               intervalMs: Int(intervalMs))
}

/// c1nklatency at end of stream: the figures of the whole stream.
@_cdecl("c1nk_swift_latency_finish")
func c1nkLatencyFinish(_ pointer: UnsafeMutableRawPointer, _ meter: UnsafeMutableRawPointer) {
    Unmanaged<LatencyMeter>.fromOpaque(meter).takeUnretainedValue().finish(PluginElement(pointer: pointer))
}

/// c1nklatency's meter, released with the element's state.
@_cdecl("c1nk_swift_latency_free")
func c1nkLatencyFree(_ meter: UnsafeMutableRawPointer) {
    Unmanaged<LatencyMeter>.fromOpaque(meter).release()
}

/// `c1nkstamp`: draws the benchmark's time stamp (`FrameStamp`) into a frame.
@_cdecl("c1nk_swift_stamp_frame")
func c1nkStampFrame(_ luma: UnsafeMutablePointer<UInt8>, _ stride: Int32, _ width: Int32, _ height: Int32, _ sequence: UInt64) {
    FrameStamp.stamp(luma: luma, stride: Int(stride), width: Int(width), height: Int(height), sequence: Int(truncatingIfNeeded: sequence))
}
