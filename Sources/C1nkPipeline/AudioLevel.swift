import C1nkGLib
import CGStreamer

/// Reads the `level` element's messages: how loud a stream is, per channel.
package enum AudioLevel {
    /// The loudest channel's RMS in dBFS, if `message` is a `level` message.
    package static func rms(from message: UnsafeMutablePointer<GstMessage>) -> Double? {
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

    package static func rms(from message: Message) -> Double? { rms(from: message.pointer) }
}
