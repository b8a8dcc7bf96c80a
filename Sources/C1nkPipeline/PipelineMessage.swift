import C1nkGLib
import CGStreamer

/// Readable forms of bus messages.
enum PipelineMessage {
    /// "element: message (debug detail)" for an error or warning message.
    static func describeError(_ message: UnsafeMutablePointer<GstMessage>) -> String {
        var error: UnsafeMutablePointer<GError>?
        var debug: UnsafeMutablePointer<gchar>?
        if message.pointee.type == GST_MESSAGE_ERROR {
            gst_message_parse_error(message, &error, &debug)
        } else {
            gst_message_parse_warning(message, &error, &debug)
        }
        defer { g_free(debug) }
        let text = GLibError.take(error).message
        let source = message.pointee.src.map { Gst.name($0) } ?? "?"
        return "\(source): \(text)"
    }
}

/// Reads the `level` element's messages.
enum AudioLevel {
    /// The loudest channel's RMS in dBFS, if `message` is a `level` message.
    static func rms(from message: UnsafeMutablePointer<GstMessage>) -> Double? {
        guard let structure = gst_message_get_structure(message),
              gst_structure_has_name(structure, "level") != 0,
              let value = gst_structure_get_value(structure, "rms"),
              let boxed = g_value_get_boxed(value) else { return nil }
        let array = boxed.assumingMemoryBound(to: GValueArray.self)
        var loudest = -Double.infinity
        for index in 0..<Int(array.pointee.n_values) {
            var channel = array.pointee.values[index]
            loudest = max(loudest, g_value_get_double(&channel))
        }
        return loudest
    }
}
