import C1nkGLib
import CGStreamer

/// What `autovideosink`, `autoaudiosink` or `autoaudiosrc` picks on this
/// machine. Opening one always "works": with no device it falls back to a
/// fake element, so `doctor` asks which element it chose.
public enum AutoSinkChoice {
    /// The factory name of the element the automatic element chose once
    /// ready (`pulsesink`, `alsasink`, `fakesink`, …); nil when the
    /// description has no automatic element or it chose nothing.
    public static func chosen(_ description: String) -> String? {
        guard let bin = try? PipelineBin.parse(description, name: "auto-check") else { return nil }
        let check = OwnedPipeline(named: "auto-check")
        check.pipeline.add(bin)
        defer { check.release() }
        guard check.setState(GST_STATE_READY) else { return nil }
        // The automatic element's own child is the real one.
        guard let automatic = bin.children.first(where: { ($0.factoryName ?? "?").hasPrefix("auto") }),
              let inside = automatic.asBin else { return nil }
        return chosenFactory(among: inside.children.map { $0.factoryName ?? "?" })
    }

    /// Of the factories inside an automatic element, in the bin's order, the
    /// chosen device's: the last one that is not a `capsfilter` or `queue`
    /// it adds around it, else the first.
    static func chosenFactory(among factories: [String]) -> String? {
        var result: String?
        for name in factories where result == nil || name != "capsfilter" && name != "queue" { result = name }
        return result
    }
}
