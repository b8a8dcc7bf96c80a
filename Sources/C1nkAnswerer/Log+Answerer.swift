import C1nkGLib

extension Log {
    /// The answerer's category. It keeps the name the call manager has always
    /// logged under (`GST_DEBUG=c1nk-call:5`, documented in README.md), so
    /// its lines and their standard-error echo read as before.
    public static let answerer = Log("c1nk-call", description: "c1nk call manager")
}
