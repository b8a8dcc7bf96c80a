import C1nkGLib

extension Log {
    /// What copies a call to someone else: the web page's viewers, their
    /// talk and keyframes, the visitor's snapshot (`GST_DEBUG=c1nk-viewers:5`).
    package static let viewers = Log("c1nk-viewers", description: "c1nk copies of a call: viewers, snapshot")
}
