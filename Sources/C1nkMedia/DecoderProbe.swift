import C1nkGLib
import C1nkPipeline
import CGStreamer
import FoundationEssentials

/// Whether a decoder works here: opened, and fed one keyframe of its codec
/// (64x64, shipped below), it gives a frame within `timeout`. A plug-in can
/// register a hardware decoder that fails only when it opens its device, or
/// hangs: neither is given a call. Blocking: run it off the main context
/// (`VideoDecoders.probeHardware`, or `doctor`). A probe that hangs is given
/// up on at `timeout`; its pipeline is let go on a thread of its own.
public enum DecoderProbe {
    public struct Outcome: Sendable, Equatable {
        public var decoder: String
        public var codec: String
        /// Nil when a frame came out.
        public var failure: String?
        public var milliseconds: Int
    }

    public static let timeout = 2.0

    /// Decodes one keyframe of `codec` with the element `decoder`.
    public static func run(_ decoder: String, codec: String, timeout: Double = timeout) -> Outcome {
        let began = Date()
        func outcome(_ failure: String?) -> Outcome {
            Outcome(decoder: decoder, codec: codec, failure: failure, milliseconds: Int(Date().timeIntervalSince(began) * 1000))
        }
        guard let frame = keyframe(for: codec) else { return outcome("no probe frame for \(codec)") }
        // The decoder's name comes from the registry (or a validated --decoder), never from outside.
        let text = "appsrc name=src format=time caps=\(frame.caps) ! \(frame.parser)\(decoder) name=decoder ! appsink name=sink sync=false max-buffers=1 drop=true"
        let pipeline: OwnedPipeline
        do { pipeline = try OwnedPipeline(launching: text, name: "c1nk-decoder-probe") } catch { return outcome("\(error)") }
        guard let source = pipeline.pipeline.element(named: "src"), let sink = pipeline.pipeline.element(named: "sink") else {
            return outcome("the probe pipeline has no source or sink")
        }
        // Starting may block in a hung driver: that too counts against the time.
        let started = Date()
        guard pipeline.start() else {
            let reason = pipeline.takeError() ?? "it would not start"
            letGo(pipeline)
            return outcome(reason)
        }
        let buffer = frame.bytes.withUnsafeBytes { gst_buffer_new_memdup($0.baseAddress, gsize($0.count)) }
        buffer?.pointee.pts = 0
        buffer?.pointee.duration = 33_333_333
        let appsrc = PointerCast.cast(source.pointer, to: GstAppSrc.self)
        if let buffer { _ = gst_app_src_push_buffer(appsrc, buffer) }
        _ = gst_app_src_end_of_stream(appsrc)
        let left = max(0.1, timeout - Date().timeIntervalSince(started))
        let end = pipeline.waitForEnd(seconds: left)
        let decoded = Sample.pull(from: sink, seconds: 0) != nil
        letGo(pipeline)
        switch end {
        case .endOfStream: return outcome(decoded ? nil : "no frame came out of one keyframe")
        case .error(let reason): return outcome(reason)
        case .timedOut: return outcome(decoded ? nil : "no frame within \(Int(timeout * 1000)) ms: it hangs")
        }
    }

    /// A hung decoder may never reach NULL: its pipeline is released on a
    /// thread of its own, so the caller goes on.
    private static func letGo(_ pipeline: OwnedPipeline) {
        let box = UncheckedBox(pipeline)
        detachThread { box.value.release() }
    }

    private final class UncheckedBox<T>: @unchecked Sendable {
        let value: T
        init(_ value: T) { self.value = value }
    }

    public struct Keyframe: Sendable {
        public var caps: String
        /// Elements before the decoder, with a trailing " ! " (or nothing).
        public var parser: String
        public var bytes: [UInt8]
    }

    /// One 64x64 black keyframe of `codec`, encoded once with x264 (Annex B:
    /// SPS, PPS, IDR), vp8enc and vp9enc.
    public static func keyframe(for codec: String) -> Keyframe? {
        switch codec.uppercased() {
        case "H264":
            return Keyframe(caps: "video/x-h264,stream-format=byte-stream,alignment=au", parser: "h264parse ! ",
                            bytes: decode("AAAAAWdCwBXaEJsBagwMDUoAAAMAAgAAAwB5HixdQAAAAAFozjyAAAAAAWWIhAaokwoAA/vyTycnXXXXXXXXXXXXgA=="))
        case "VP8":
            return Keyframe(caps: "video/x-vp8,width=64,height=64,framerate=30/1", parser: "",
                            bytes: decode("8AIAnQEqQABAAABHCIWFiIWEiAICAAZwPEJgCrIg9zAA/v+rUIA="))
        case "VP9":
            return Keyframe(caps: "video/x-vp9,width=64,height=64,framerate=30/1", parser: "",
                            bytes: decode("sSTBoUgAH4AfsAHBIODCkAABgGAAAFpAf//4UmkD71qSfgA="))
        default:
            return nil
        }
    }

    private static func decode(_ base64: String) -> [UInt8] { [UInt8](Data(base64Encoded: base64) ?? Data()) }
}
