import C1nkGLibBase

extension Log {
    /// The process speaker's own debug category (its sleep and wake, its
    /// inputs, its failures): `GST_DEBUG=c1nk-speaker:5`.
    public static let speaker = Log("c1nk-speaker", description: "c1nk process speaker")
}
