import C1nkGLib
import CGStreamer

/// How much the speaker's sink may hold back: low-latency settings for the
/// sink elements of the speaker (`--audio-sink`), unless its description sets
/// them itself.
///
/// - An audio device sink (`alsasink`, `pulsesink`: a ring buffer) reports
///   its whole `buffer-time` as latency, and plays every sample that much
///   after its time: 200 ms by default, more than the rest of the call's
///   path. 40 ms in 10 ms periods here (measured: `alsasink` reports 241 ms
///   with its defaults, 66 ms with these).
/// - `async=false`: the speaker's pipeline reaches PLAYING at once rather
///   than waiting for its sink to preroll (its live inputs are added once
///   it runs; a sink waiting for them would hold it in PAUSED).
/// - Every synchronised sink adds its `processing-deadline` (20 ms by
///   default) to the latency, the time allowed between the mixer's output
///   and the sink: volume, level, echo probe and conversion take well under
///   a millisecond here, so 5 ms leaves them several times that. Every
///   millisecond of it is one more between the door's voice and the
///   resident's ear, and one more of lip-sync offset (the picture is shown
///   as soon as it is decoded).
enum SpeakerDevice {
    static let bufferMicroseconds = 40_000
    static let periodMicroseconds = 10_000
    static let processingDeadline: UInt64 = 5_000_000

    /// Applies the settings to `element` when it is such a sink and
    /// `description` (the user's `--audio-sink`) does not set them.
    static func tune(_ element: Element, description: String) {
        guard element.pointer.pointee.object.flags & GST_ELEMENT_FLAG_SINK.rawValue != 0 else { return }
        if element.has(property: "async"), !description.contains("async=") {
            element.set("async", fromString: "false")
        }
        if element.has(property: "processing-deadline"), !description.contains("processing-deadline") {
            element.set("processing-deadline", fromString: String(processingDeadline))
        }
        if element.has(property: "buffer-time"), element.has(property: "latency-time"),
           !description.contains("buffer-time"), !description.contains("latency-time") {
            element.set("buffer-time", fromString: String(bufferMicroseconds))
            element.set("latency-time", fromString: String(periodMicroseconds))
        }
    }
}
