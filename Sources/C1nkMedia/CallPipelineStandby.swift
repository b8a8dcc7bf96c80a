import C1nkGLib
import C1nkPipeline
import CGStreamer

/// The next call's pipeline, built from its description ahead of time: at
/// start-up and after each call, so that the offer does not wait for
/// `gst_parse_launch` (6–17 ms on this machine, the largest step between
/// offer and answer).
///
/// The standby is the description's elements only, in NULL: no webrtcbin
/// (whose ICE agent runs a thread from the moment it exists), no thread, no
/// socket, no device opened. A call takes it when the description filled
/// with the call's values is the same text (the same sinks, the same audio
/// encoder for the door's offer); otherwise the call builds its own as
/// before and the standby is dropped. Recording descriptions are not kept
/// (their file name is the call's). `discard()` drops it at shutdown.
/// Main context only.
enum CallPipelineStandby {
    private struct Standby {
        let description: PipelineDescription
        let text: [String]
        let pipeline: OwnedPipeline
    }

    nonisolated(unsafe) private static var standby: Standby?
    nonisolated(unsafe) private static var timer: GLibTimer?

    /// The standby pipeline if it was built from `description` with these
    /// `values` (the caller owns it now); nil otherwise (and an unfit
    /// standby is dropped).
    static func take(_ description: PipelineDescription, values: [String: String]) -> OwnedPipeline? {
        timer?.cancel()
        timer = nil
        guard let kept = standby else { return nil }
        standby = nil
        if kept.description == description && kept.text == filled(description, values) {
            return kept.pipeline
        }
        Log.callMedia.debug("the standby call pipeline does not fit this call; building it")
        return nil
    }

    /// Builds the standby for `description` with `values`, now or (`after`
    /// seconds) once a call's teardown is done. Nothing for a recording
    /// description, nor when one already fits.
    static func prepare(_ description: PipelineDescription, values: [String: String], after seconds: Double? = nil) {
        guard !description.uses("record-location") else { return }
        let text = filled(description, values)
        if let kept = standby, kept.description == description, kept.text == text { return }
        timer?.cancel()
        timer = nil
        guard let seconds else { return build(description, values: values, text: text) }
        timer = GLibTimer(after: seconds) { build(description, values: values, text: text) }
    }

    /// Drops the standby (at shutdown: nothing of a pipeline is left alive).
    static func discard() {
        timer?.cancel()
        timer = nil
        standby = nil
    }

    /// Whether a standby is ready, for tests.
    static var isReady: Bool { standby != nil }

    private static func build(_ description: PipelineDescription, values: [String: String], text: [String]) {
        timer = nil
        discard()
        do {
            standby = Standby(description: description, text: text, pipeline: OwnedPipeline(adopting: try description.build(values)))
        } catch {
            // The call will build it and report the error where it belongs.
            Log.callMedia.debug("no standby call pipeline: \(error)")
        }
    }

    private static func filled(_ description: PipelineDescription, _ values: [String: String]) -> [String] {
        description.lines.map { MediaConfiguration.fill($0, values) }
    }
}
