import C1nkGLib
import CGStreamer
import Foundation

/// The web page's talk path into a call: the call's `{audio-source}` becomes
/// the user's microphone and an `appsrc` (`web-talk-in`) mixed together
/// (`audiomixer name=web-talk`), before the call's own chain — so the
/// browser's voice passes the same echo canceller, the same `microphone`
/// gate (nothing before accept) and the same mute as the local microphone.
/// Mixed, not replacing: a resident at the wall and one on a phone both reach the door.
public enum WebTalk {
    public static let inputName = "web-talk-in"
    public static let rawCaps = "audio/x-raw,format=S16LE,layout=interleaved,rate=48000,channels=1"

    /// The `{audio-source}` value with the talk input mixed in.
    public static func audioSource(wrapping source: String) -> String {
        "\(source) ! audioconvert ! audioresample ! web-talk. "
            + "appsrc name=\(inputName) is-live=true format=time do-timestamp=true block=false ! web-talk. "
            + "audiomixer name=web-talk"
    }
}

/// Where one viewer's decoded voice goes: the call's `web-talk-in`, while
/// that viewer is the talker; nowhere otherwise. Set on the main context,
/// read on the viewer's streaming thread.
final class TalkRoute: @unchecked Sendable {
    private let lock = NSLock()
    private var target: Element?

    func set(_ target: Element?) {
        lock.lock()
        self.target = target
        lock.unlock()
    }

    /// Streaming thread: one reference of `buffer` to the call, if talking.
    func push(_ buffer: UnsafeMutablePointer<GstBuffer>) {
        lock.lock()
        let target = self.target
        lock.unlock()
        guard let target else { return }
        _ = gst_app_src_push_buffer(PointerCast.cast(target.pointer, to: GstAppSrc.self), gst_buffer_ref(buffer))
    }
}
