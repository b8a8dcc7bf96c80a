import C1nkGLib
import CGStreamer
import FoundationEssentials
import Synchronization

/// Which RTP encodings this machine can play, asked of the GStreamer
/// registry: a depayloader that takes the encoding's RTP caps, and a decoder
/// that takes what the depayloader gives. Works for audio and video alike
/// ("VP8", "H264", "AV1", "OPUS", "PCMU", "G722" …).
public enum CodecSupport {
    /// The elements that play one encoding here.
    public struct Playable: Equatable, Sendable {
        public var encodingName: String
        public var media: String
        /// Factory names, highest rank first.
        public var depayloader: String
        public var decoder: String
        /// The decoder's class says "Hardware" (VA-API, V4L2, …).
        public var hardware: Bool
    }

    /// RTP encodings that are not codecs of their own: repair streams.
    public static let repairEncodings: Set<String> = ["RTX", "RED", "ULPFEC", "FLEXFEC-03", "TELEPHONE-EVENT", "CN"]

    /// The depayloader and decoder for `encodingName` (any case) carried as
    /// `media` ("audio", "video"), or nil when the registry has none.
    public static func playable(_ encodingName: String, media: String, clockRate: Int? = nil) -> Playable? {
        let name = encodingName.uppercased()
        let key = "\(media)/\(name)/\(clockRate ?? 0)"
        if let cached = cache.withLock({ $0[key] }) { return cached }
        let found = lookUp(name, media: media, clockRate: clockRate)
        cache.withLock { $0[key] = found }
        return found
    }

    /// Names of offered encodings that cannot be played, for messages.
    public static func unplayable(_ encodingNames: [String], media: String) -> [String] {
        encodingNames.filter { !repairEncodings.contains($0.uppercased()) && playable($0, media: media) == nil }
    }

    private static let cache = Mutex<[String: Playable?]>([:])

    /// Forgets what was looked up: the decoders' ranks changed (`VideoDecoders`).
    static func forgetChoices() { cache.withLock { $0 = [:] } }

    // GstElementFactoryListType bits (gstelementfactory.h; macros Swift cannot import).
    private static let typeDecoder: GstElementFactoryListType = 1 << 0
    private static let typeDepayloader: GstElementFactoryListType = 1 << 8

    private static func lookUp(_ name: String, media: String, clockRate: Int?) -> Playable? {
        // An encoding name is an RTP token (RFC 4855); anything else in the
        // door's SDP would make the caps text invalid, so it plays nothing.
        let token = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.+".unicodeScalars)
        guard !name.isEmpty, name.unicodeScalars.allSatisfy(token.contains),
              !media.isEmpty, media.unicodeScalars.allSatisfy(token.contains) else { return nil }
        GStreamer.initialize()
        var rtp = "application/x-rtp,media=\(media),encoding-name=\(name)"
        if let clockRate { rtp += ",clock-rate=\(clockRate)" }
        guard let rtpCaps = Caps(rtp) else { return nil }
        for depayloader in factories(typeDepayloader, accepting: rtpCaps) where namesEncoding(depayloader.factory, rtpCaps) {
            guard let coded = sourceCaps(of: depayloader.factory) else { continue }
            if let decoder = factories(typeDecoder, accepting: coded).first {
                return Playable(encodingName: name, media: media, depayloader: depayloader.name,
                                decoder: decoder.name, hardware: decoder.klass.contains("Hardware"))
            }
        }
        return nil
    }

    struct Factory {
        var factory: OpaquePointer
        var name: String
        var klass: String
        var rank: UInt32
    }

    /// Factories of `type` whose sink pad can take `caps`, of `minimumRank`
    /// or more, highest rank first. The factories stay alive in the
    /// registry; the list is released.
    static func factories(_ type: GstElementFactoryListType, accepting caps: Caps, minimumRank: GstRank = GST_RANK_MARGINAL) -> [Factory] {
        guard let all = gst_element_factory_list_get_elements(type, minimumRank) else { return [] }
        defer { gst_plugin_feature_list_free(all) }
        let filtered = gst_element_factory_list_filter(all, caps.pointer, GST_PAD_SINK, 0)
        defer { gst_plugin_feature_list_free(filtered) }
        var result: [Factory] = []
        var cursor = filtered
        while let node = cursor {
            if let data = node.pointee.data {
                let factory = OpaquePointer(data)
                let klass = gst_element_factory_get_metadata(factory, "klass").map { String(cString: $0) } ?? ""
                result.append(Factory(factory: factory, name: Gst.name(data.assumingMemoryBound(to: GstObject.self)), klass: klass,
                                      rank: gst_plugin_feature_get_rank(factory)))
            }
            cursor = node.pointee.next
        }
        return result.sorted { $0.rank > $1.rank }
    }

    /// Whether the factory's sink template names the encoding: a template
    /// without `encoding-name` (payload types of RFC 3551) takes any caps.
    private static func namesEncoding(_ factory: OpaquePointer, _ rtpCaps: Caps) -> Bool {
        var cursor = gst_element_factory_get_static_pad_templates(factory).map { UnsafeMutablePointer(mutating: $0) }
        while let node = cursor {
            if let template = node.pointee.data?.assumingMemoryBound(to: GstStaticPadTemplate.self),
               template.pointee.direction == GST_PAD_SINK, let caps = gst_static_pad_template_get_caps(template).map(Caps.init(adopting:)) {
                for index in 0..<caps.count {
                    guard let structure = caps.structure(at: index),
                          gst_structure_has_field(structure, "encoding-name") != 0,
                          let one = gst_caps_new_empty().map(Caps.init(adopting:)) else { continue }
                    gst_caps_append_structure(one.pointer, gst_structure_copy(structure))
                    if gst_caps_can_intersect(one.pointer, rtpCaps.pointer) != 0 { return true }
                }
            }
            cursor = node.pointee.next
        }
        return false
    }

    /// What a factory's source pad template produces.
    private static func sourceCaps(of factory: OpaquePointer) -> Caps? {
        var cursor = gst_element_factory_get_static_pad_templates(factory).map { UnsafeMutablePointer(mutating: $0) }
        while let node = cursor {
            if let template = node.pointee.data?.assumingMemoryBound(to: GstStaticPadTemplate.self),
               template.pointee.direction == GST_PAD_SRC {
                return gst_static_pad_template_get_caps(template).map(Caps.init(adopting:))
            }
            cursor = node.pointee.next
        }
        return nil
    }
}
