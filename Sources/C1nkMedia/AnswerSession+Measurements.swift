import C1nkGLib
import C1nkProbes
import CGStreamer

/// The call's figures: the set-up steps between offer and first frame, the
/// latency probes of `MediaConfiguration.measure`, and what diagnostics read.
extension AnswerSession {
    /// The steps between offer and answer: the pipeline built from its text
    /// (and webrtcbin made), prepared (pads, probes, gates), started
    /// (PLAYING), the remote description applied (back on the main
    /// context); the answer created is `answerAt`.
    enum Mark { case built, prepared, started, remoteDescription }

    func mark(_ step: Mark) { marks[step] = MainContext.monotonicSeconds() }

    /// Latency figures so far, with `MediaConfiguration.measure`.
    public var measurements: MeasurementProbes.Summary? {
        guard var summary = probes?.summary() else { return nil }
        func span(_ from: Double?, _ to: Double?) -> Double? { from.flatMap { a in to.map { ($0 - a) * 1000 } } }
        summary.setupMs = ["offerToAnswer": span(offerAt, answerAt), "answerToConnected": span(answerAt, connectedAt),
                           "connectedToFirstFrame": span(connectedAt, firstFrameAt),
                           // offerToAnswer's steps (see `Mark`).
                           "answerBuild": span(offerAt, marks[.built]), "answerPrepare": span(marks[.built], marks[.prepared]),
                           "answerStart": span(marks[.prepared], marks[.started]),
                           "answerRemoteDescription": span(marks[.started], marks[.remoteDescription]),
                           "answerCreate": span(marks[.remoteDescription], answerAt)].compactMapValues { $0 }
        return summary
    }

    /// Measurement: onsets of tone bursts at the src pad of the element
    /// `name` (e.g. an `identity` after a test microphone), as captured.
    public func onsetProbe(at name: String) -> AudioOnsetProbe? {
        AudioOnsetProbe.attach(to: name, in: pipeline.element, timing: .capture)
    }

    /// The caps of the video arriving at `video-out`, once it flows
    /// ("video/x-raw, width=800, …"), for diagnostics.
    public var videoOutCaps: String? {
        bin.element(named: "video-out")?.staticPad("sink")?.currentCaps?.description
    }
}
