import C1nkGLib

extension Log {
    /// The GStreamer plugin's own lines: c1nkdoorbin's set-up and commands
    /// (`GST_DEBUG=c1nk-plugin:5`). Its calls log under the answerer's categories.
    static let plugin = Log("c1nk-plugin", description: "c1nk GStreamer plugin (c1nkdoorbin, c1nkstamp, c1nklatency)")
}
