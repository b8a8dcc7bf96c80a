import CGLib
import C1nkGLib

/// An `rtspsrc` playing the restream, its streams linked to a player's
/// branches by payload type (`RestreamMedia.carriesVideo`), each on the
/// streaming thread that adds its pad. For players that watch the door in
/// this process: the benchmark's clients and the tests'.
public enum RestreamClientLinks {
    /// Links each stream `source` adds to `video` or `audio` (nil: left
    /// unlinked); the links are made while the returned connection lives.
    public static func connect(_ source: Element, video: Pad?, audio: Pad?) -> SignalConnection {
        source.connect("pad-added") { (added: gpointer?) in
            guard let pad = Pad(retaining: added), let isVideo = RestreamMedia.carriesVideo(rtspsrcPad: pad.name),
                  let sink = isVideo ? video : audio, !sink.isLinked else { return }
            _ = pad.link(sink)
        }
    }
}
