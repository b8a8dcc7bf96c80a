import CGStreamer

/// Pad probes with Swift closures. They run on streaming threads, once per
/// buffer: keep them to measurement (read a timestamp, count) and hand
/// anything else to `MainContext.post`.
public enum PadProbe {
    public typealias Callback = (UnsafeMutablePointer<GstPadProbeInfo>) -> GstPadProbeReturn

    @discardableResult
    public static func add(_ pad: UnsafeMutablePointer<GstPad>, _ mask: GstPadProbeType,
                           _ callback: @escaping Callback) -> gulong {
        let box = Unmanaged.passRetained(ClosureBox<Callback>(callback)).toOpaque()
        return gst_pad_add_probe(pad, mask, { _, info, data in
            Unmanaged<ClosureBox<Callback>>.fromOpaque(data!).takeUnretainedValue().value(info!)
        }, box, { data in
            Unmanaged<ClosureBox<Callback>>.fromOpaque(data!).release()
        })
    }

    /// Calls `body` (on the main context) when the first buffer passes `pad`.
    public static func onFirstBuffer(_ pad: UnsafeMutablePointer<GstPad>, _ body: @escaping () -> Void) {
        add(pad, GST_PAD_PROBE_TYPE_BUFFER) { _ in
            MainContext.post(body)
            return GST_PAD_PROBE_REMOVE
        }
    }
}
