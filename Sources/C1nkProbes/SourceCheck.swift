import C1nkGLib
import C1nkPipeline
import CGStreamer

/// Captures a few buffers from a source once (`c1nk-gst-answer doctor`), to
/// learn whether it really delivers: an automatic source may pick an element
/// that opens without a device and fails only when it streams.
public enum SourceCheck {
    /// Nil when `description` delivers a few buffers within `timeout` seconds;
    /// otherwise what went wrong.
    public static func problem(capturing description: String, timeout: Double = 3) -> String? {
        let capture = "\(description) ! fakesink name=c1nk-source-check num-buffers=3 sync=false async=false"
        guard let bin = try? PipelineBin.parse(capture, name: "source-check") else { return nil } // reported by validation
        let check = OwnedPipeline(named: "source-check")
        check.pipeline.add(bin)
        defer { check.release() }
        if !check.start(), !check.hasPendingMessages {
            return "it failed to start"
        }
        let end = check.waitForEnd(seconds: timeout)
        Log.probe.debug("source check: '\(description)': \(end)")
        switch end {
        case .endOfStream: return nil
        case .error(let reason): return reason
        case .timedOut: return "no sound within \(Int(timeout)) s"
        }
    }
}
