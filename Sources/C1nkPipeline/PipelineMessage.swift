import C1nkGLib
import CGStreamer

/// Readable forms of bus messages.
package enum PipelineMessage {
    /// "element: message (debug detail)" for an error or warning message.
    package static func describeError(_ message: UnsafeMutablePointer<GstMessage>) -> String {
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

    package static func describeError(_ message: Message) -> String { describeError(message.pointer) }
}
