import C1nkGLib

extension Log {
    /// The wall display: its pipeline's errors, snapshots, input (`GST_DEBUG=c1nk-display:5`).
    static let display = Log("c1nk-display", description: "c1nk wall display")
}
