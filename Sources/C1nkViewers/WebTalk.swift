import C1nkGLib
import CGStreamer
import FoundationEssentials

/// The web page's talk path into a call: the call's `{audio-source}` becomes
/// the user's microphone and an `appsrc` (`web-talk-in`) mixed together
/// (`audiomixer name=web-talk`), before the call's own chain — so the
/// browser's voice passes the same echo canceller, the same `microphone`
/// gate (nothing before accept) and the same mute as the local microphone.
/// Mixed, not replacing: a resident at the wall and one on a phone both reach the door.
///
/// The talk input is live and mostly silent (no browser talks): the mixer
/// must go on without it. A live aggregator does, once the latency query
/// succeeds; an appsrc answers it by default with a maximum of 0, below
/// the microphone's minimum (one buffer, 10–21 ms), the query fails and
/// the mixer waits for the talk input forever: the wall's microphone never
/// reached the door. `min-latency=0 max-latency=-1` says "no latency of its
/// own, any amount of buffering downstream"; `start-time-selection=first`
/// starts the mix at the microphone's first buffer (at accept), not at 0
/// with a burst of silence for the time already run.
public enum WebTalk {
    public static let inputName = "web-talk-in"
    public static let rawCaps = "audio/x-raw,format=S16LE,layout=interleaved,rate=48000,channels=1"

    /// The `{audio-source}` value with the talk input mixed in.
    public static func audioSource(wrapping source: String) -> String {
        "\(source) ! audioconvert ! audioresample ! web-talk. "
            + "appsrc name=\(inputName) is-live=true format=time do-timestamp=true block=false "
            + "min-latency=0 max-latency=-1 ! web-talk. "
            + "audiomixer name=web-talk start-time-selection=first"
    }
}

/// Where one viewer's decoded voice goes: the call's `web-talk-in`, while
/// that viewer is the talker; nowhere otherwise. Set on the main context,
/// read on the viewer's streaming thread. A SIP phone's voice goes the same way.
public final class TalkRoute: @unchecked Sendable {
    private let lock = ThreadLock()
    private var target: Element?

    public init() {}

    public func set(_ target: Element?) {
        lock.lock()
        self.target = target
        lock.unlock()
    }

    /// Streaming thread: `buffer` to the call, if talking. Its times are the
    /// viewer's pipeline's, which started later than the call's: the live
    /// mixer would drop every buffer as late. A copy (the samples shared,
    /// not copied) without them is stamped on arrival by the talk input
    /// (`do-timestamp`) with the call's own running time.
    public func push(_ buffer: UnsafeMutablePointer<GstBuffer>) {
        lock.lock()
        let target = self.target
        lock.unlock()
        guard let target, let copy = gst_buffer_copy(buffer) else { return }
        copy.pointee.pts = GstClockTime.max
        copy.pointee.dts = GstClockTime.max
        _ = gst_app_src_push_buffer(PointerCast.cast(target.pointer, to: GstAppSrc.self), copy)
    }
}
