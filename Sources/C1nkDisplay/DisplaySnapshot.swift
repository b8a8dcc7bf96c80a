import C1nkGLib
import CGStreamer
import FoundationEssentials

/// A sink's last frame read back, converted (the screenshots, and tests
/// that look at what the display shows).
enum DisplaySnapshot {
    /// The last sample of the first of `sinks` that keeps one, converted to
    /// `caps` (e.g. "image/png" or "video/x-raw,format=RGB"); nil when none keeps one.
    static func lastFrame(of sinks: [Element], as caps: String) -> Data? {
        for sink in sinks {
            guard let raw = c1nk_object_get_object(sink.object, "last-sample") else { continue }
            let sample = Sample(adopting: OpaquePointer(raw))
            guard let target = Caps(caps) else { return nil }
            var error: UnsafeMutablePointer<GError>?
            let made = withExtendedLifetime((sample, target)) {
                gst_video_convert_sample(sample.pointer, target.pointer, 5 * 1_000_000_000, &error)
            }
            guard let made else {
                Log.display.warning("display snapshot: \(GLibError.take(error).message)")
                return nil
            }
            return Sample(adopting: made).buffer?.withBytes { Data($0) }
        }
        return nil
    }
}
