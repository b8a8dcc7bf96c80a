import C1nkGLib

extension Log {
    /// Pipelines from text and their lifecycle: `GST_DEBUG=c1nk-pipeline:5`.
    static let pipeline = Log("c1nk-pipeline", description: "c1nk pipelines from text, their errors and lifecycle")
}
