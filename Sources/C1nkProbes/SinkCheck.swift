import C1nkGLib
import C1nkPipeline
import CGStreamer

/// Opens a sink once at start-up to learn whether it can work here (a
/// display, a DRM device, the permission to use it), so the user hears about
/// it before the first ring rather than in the middle of a call.
public enum SinkCheck {
    /// Nil when `description` opens; otherwise what went wrong and what to try.
    public static func problem(opening description: String, kind: String = "video") -> String? {
        guard let bin = try? PipelineBin.parse(description, name: "sink-check") else { return nil } // reported by validation
        let check = OwnedPipeline(named: "sink-check")
        check.pipeline.add(bin)
        defer { check.release() }
        guard !check.setState(GST_STATE_READY) else { return nil }
        let reason = check.takeError() ?? "it failed to start"
        Log.probe.debug("sink check: '\(description)' does not open: \(reason)")
        return "the \(kind) sink '\(description)' cannot open: \(reason). " + alternatives(kind, besides: description)
    }

    /// The other sinks to try, said as the options that choose them.
    package static func alternatives(_ kind: String, besides chosen: String = "") -> String {
        let options = kind == "video"
            ? [("kmssink", "a bare display: needs /dev/dri/card0, membership of the video group and no desktop holding the screen"),
               ("autovideosink", "a desktop"), ("waylandsink", "a Wayland desktop"), ("fakesink", "no display at all")]
            : [("autoaudiosink", "the default speaker"), ("alsasink", "an ALSA device"), ("pulsesink", "a sound server"),
               ("fakesink", "no speaker")]
        let option = kind == "video" ? "--sink" : "--audio-sink"
        return "Alternatives: " + options.filter { !chosen.hasPrefix($0.0) }
            .map { "\(option) \($0.0) (\($0.1))" }.joined(separator: ", ")
    }
}
