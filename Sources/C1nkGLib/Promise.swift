import CGStreamer

/// `GstPromise` with a Swift closure for its reply.
///
/// The closure runs on whichever thread replies (webrtcbin's own); it must
/// only copy what it needs out of the reply and `MainContext.post` the rest.
package enum Promise {
    /// `replied` is false when the promise was interrupted or expired (the
    /// element shut down); a successful reply may carry no structure at all.
    package typealias Reply = (_ replied: Bool, _ reply: UnsafePointer<GstStructure>?) -> Void

    package static func make(_ onReply: @escaping Reply) -> UnsafeMutablePointer<GstPromise> {
        let box = Unmanaged.passRetained(ClosureBox<Reply>(onReply)).toOpaque()
        return gst_promise_new_with_change_func({ promise, data in
            let box = Unmanaged<ClosureBox<Reply>>.fromOpaque(data!).takeUnretainedValue()
            let replied = gst_promise_wait(promise) == GST_PROMISE_RESULT_REPLIED
            box.value(replied, replied ? gst_promise_get_reply(promise) : nil)
        }, box, { data in
            Unmanaged<ClosureBox<Reply>>.fromOpaque(data!).release()
        })
    }

    /// The `GError` a webrtcbin promise replies with when an operation fails.
    package static func errorMessage(replied: Bool, _ reply: UnsafePointer<GstStructure>?) -> String? {
        guard replied else { return "no reply (the session was closed)" }
        guard let reply else { return nil }
        guard gst_structure_has_field(reply, "error") != 0,
              let value = gst_structure_get_value(reply, "error"),
              let boxed = g_value_get_boxed(value) else { return nil }
        let error = boxed.assumingMemoryBound(to: GError.self)
        return error.pointee.message.map { String(cString: $0) } ?? "unknown error"
    }
}
