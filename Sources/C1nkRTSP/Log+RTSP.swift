import C1nkGLibBase

extension Log {
    /// The RTSP restream: the server, each call's mount, its audio gate (`GST_DEBUG=c1nk-rtsp:5`).
    package static let rtsp = Log("c1nk-rtsp", description: "c1nk RTSP restream")
}
