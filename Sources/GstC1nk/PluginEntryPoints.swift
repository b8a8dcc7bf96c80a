import C1nkGLib
import CGStreamer
import Glibc

/// The running cores by element; touched on the plugin's context thread only.
enum Doorbins {
    nonisolated(unsafe) static var cores: [UnsafeMutableRawPointer: DoorbinCore] = [:]
}

/// NULL → READY: reads the properties (here, so that a bad one fails the
/// change at once) and starts the core on the context thread.
@_cdecl("c1nk_swift_doorbin_start")
func c1nkDoorbinStart(_ element: UnsafeMutableRawPointer, _ video: UnsafePointer<CChar>, _ audio: UnsafePointer<CChar>,
                      _ mic: UnsafePointer<CChar>, _ problem: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Int32 {
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
func c1nkDoorbinStop(_ element: UnsafeMutableRawPointer) {
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
func c1nkDoorbinCommand(_ element: UnsafeMutableRawPointer, _ command: UnsafePointer<CChar>) {
    let word = String(cString: command)
    PluginContext.post {
        guard let core = Doorbins.cores[element] else {
            Log.app.warning("c1nkdoorbin: \(word) ignored: the element is not started (set it to READY or PLAYING)")
            return
        }
        core.command(word)
    }
}
