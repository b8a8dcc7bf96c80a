import C1nkGLib

extension Log {
    /// The call's media: its webrtcbin session, pipeline, recording and
    /// repairs (`GST_DEBUG=c1nk-media:5`).
    package static let callMedia = Log("c1nk-media", description: "c1nk webrtcbin media session")
}
