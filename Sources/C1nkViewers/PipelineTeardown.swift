import C1nkGLib
import CGStreamer
import Dispatch
import Synchronization

/// Pipelines set to NULL and released on a thread of their own, one after
/// the other, never on the main context: a webrtcbin pipeline going to NULL
/// waits for its streaming, ICE and DTLS threads, and ten of the web page's
/// viewers ended at a hang-up would hold the main context for all of them
/// in a row. What the owner must undo on the main context (its signals, its
/// probes' targets) it undoes before handing the pipeline over.
enum PipelineTeardown {
    private static let queue = DispatchQueue(label: "c1nk-pipeline-teardown")
    private static let pending = Atomic<Int>(0)

    /// Pipelines handed over and not yet released (tests, diagnostics).
    static var inProgress: Int { pending.load(ordering: .relaxed) }

    /// Sets `pipeline` to NULL and drops this reference of it, off the main context.
    static func release(_ pipeline: Pipeline) {
        let handed = Handed(pipeline: pipeline)
        pending.add(1, ordering: .relaxed)
        queue.async {
            _ = handed.pipeline.setState(GST_STATE_NULL)
            handed.drop()
            pending.subtract(1, ordering: .relaxed)
        }
    }

    /// The one reference handed to the teardown thread; no other thread uses it after.
    private final class Handed: @unchecked Sendable {
        private(set) var pipeline: Pipeline!
        init(pipeline: Pipeline) { self.pipeline = pipeline }
        func drop() { pipeline = nil }
    }
}
