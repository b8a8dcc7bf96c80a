extension MediaConfiguration {
    /// The placeholder values the user chose (`{sink}`, `{audio-source}`, …), for `doctor`.
    public var userPlaceholderValues: [String: String] { userValues }
}
