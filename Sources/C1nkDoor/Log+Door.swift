import C1nkGLib

extension Log {
    /// The simulated door's own debug category: `GST_DEBUG=c1nk-door:5`.
    static let door = Log("c1nk-door", description: "c1nk simulated door")
}
