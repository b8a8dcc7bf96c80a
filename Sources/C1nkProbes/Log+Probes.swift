import C1nkGLib

extension Log {
    /// The measurement probes and start-up checks: `GST_DEBUG=c1nk-probe:5`.
    static let probe = Log("c1nk-probe", description: "c1nk measurement probes and device checks")
}
