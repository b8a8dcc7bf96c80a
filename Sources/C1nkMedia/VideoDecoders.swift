import C1nkGLib
import CGStreamer
import FoundationEssentials
import Synchronization

/// The video decoders this machine has, asked of the GStreamer registry at
/// run time (a plug-in installed for hardware that is absent registers
/// nothing, or an element that fails when opened): never a fixed list.
///
/// What decodes the door's video is what `decodebin` (the shipped
/// pipelines) and `{video-decoder}` take: the highest rank. So the choice is
/// made by ranks, in this process only: `software` takes hardware decoders
/// out, `ELEMENT` puts that one above all, and a decoder that fails its
/// probe or errors in a call is taken out for the rest of the process (the
/// next call skips it).
public enum VideoDecoders {
    public struct Candidate: Equatable, Sendable {
        public var name: String
        public var rank: UInt32
        /// Its class says "Hardware" (V4L2, VA-API, NVDEC, …).
        public var hardware: Bool
    }

    /// The door's codecs (RTP encoding names) and what their decoders take
    /// (VP8 and VP9 without alpha: the alpha decode bins take only that).
    public static let codedCaps: [(codec: String, caps: String)] = [
        ("H264", "video/x-h264"), ("VP8", "video/x-vp8,codec-alpha=(boolean)false"), ("VP9", "video/x-vp9,codec-alpha=(boolean)false"),
        ("AV1", "video/x-av1"), ("H265", "video/x-h265"),
    ]

    /// Decoders of `codec` that decodebin would consider (rank marginal or
    /// more), highest rank first.
    public static func candidates(for codec: String) -> [Candidate] {
        guard let caps = codedCaps.first(where: { $0.codec == codec.uppercased() })?.caps else { return [] }
        return factories(accepting: caps).filter { $0.rank >= UInt32(GST_RANK_MARGINAL.rawValue) }
    }

    /// What decodes `codec` now: the highest-ranked candidate.
    public static func choice(for codec: String) -> Candidate? { candidates(for: codec).first }

    /// The software decoder of `codec` that decodebin would take.
    public static func software(for codec: String) -> Candidate? { candidates(for: codec).first { !$0.hardware } }

    /// Decoders taken out in this process, and why.
    public static var givenUp: [String: String] { state.withLock { $0.givenUp } }

    /// Applies `--decoder`. `auto` changes nothing here (`probeHardware`
    /// takes out what fails); `software` takes every hardware decoder out;
    /// an element's name puts it above every other decoder of its codecs.
    /// Throws when the element is not a video decoder on this machine.
    public static func apply(_ preference: DecoderPreference) throws {
        GStreamer.initialize()
        switch preference {
        case .auto:
            break
        case .software:
            for candidate in allDecoders() where candidate.hardware { setRank(candidate.name, 0) }
            CodecSupport.forgetChoices()
        case .element(let name):
            guard let chosen = allDecoders().first(where: { $0.name == name }) else {
                let known = allDecoders().map(\.name).sorted().joined(separator: ", ")
                throw DecoderPreference.Invalid(description: "--decoder \(name): no video decoder of that name on this machine (there are: \(known)); c1nk-gst-answer doctor lists them")
            }
            let top = allDecoders().map(\.rank).max() ?? 0
            setRank(chosen.name, max(top + 1, UInt32(GST_RANK_PRIMARY.rawValue) + 1))
            CodecSupport.forgetChoices()
        }
    }

    /// Takes `name` out for the rest of the process (its probe failed, or it
    /// errored in a call): decodebin and the next call take the next one.
    public static func giveUp(_ name: String, reason: String) {
        let first = state.withLock { $0.givenUp.updateValue(reason, forKey: name) == nil }
        setRank(name, 0)
        CodecSupport.forgetChoices()
        if first { Log.callMedia.warning("the video decoder \(name) is not used again in this process: \(reason)") }
    }

    /// Probes, one after the other on a thread of their own, the hardware
    /// decoders that outrank the software one of their codec, and gives up
    /// on each that cannot decode one keyframe within `DecoderProbe.timeout`.
    /// `done` runs on the main context with what was found.
    public static func probeHardware(done: @escaping @Sendable ([DecoderProbe.Outcome]) -> Void = { _ in }) {
        let work = hardwareToProbe()
        guard !work.isEmpty else { MainContext.post { done([]) }; return }
        detachThread {
            let outcomes = work.map { DecoderProbe.run($0.decoder, codec: $0.codec) }
            MainContext.post {
                for outcome in outcomes {
                    if let failure = outcome.failure { giveUp(outcome.decoder, reason: "its probe failed: \(failure)") }
                    else { Log.callMedia.info("the video decoder \(outcome.decoder) decoded its probe in \(outcome.milliseconds) ms") }
                }
                done(outcomes)
            }
        }
    }

    /// The hardware decoders that would be taken before the software one of their codec.
    public static func hardwareToProbe() -> [(decoder: String, codec: String)] {
        var work: [(decoder: String, codec: String)] = []
        for (codec, _) in codedCaps where DecoderProbe.keyframe(for: codec) != nil {
            let all = candidates(for: codec)
            let softwareRank = all.first { !$0.hardware }?.rank ?? 0
            for candidate in all where candidate.hardware && candidate.rank >= softwareRank
                && !work.contains(where: { $0.decoder == candidate.name }) {
                work.append((candidate.name, codec))
            }
        }
        return work
    }

    private struct State { var givenUp: [String: String] = [:] }
    private static let state = Mutex(State())

    // GstElementFactoryListType bits (gstelementfactory.h; macros Swift cannot import).
    private static let typeDecoder: GstElementFactoryListType = 1 << 0
    private static let typeVideo: GstElementFactoryListType = 1 << 49

    /// Every decoder of `codec`, whatever its rank (a rank of 0 is one taken out), highest first.
    public static func allDecoders(for codec: String) -> [Candidate] {
        guard let caps = codedCaps.first(where: { $0.codec == codec.uppercased() })?.caps else { return [] }
        return factories(accepting: caps)
    }

    /// Every video decoder, whatever its rank (a rank of 0 is one taken out).
    static func allDecoders() -> [Candidate] {
        var seen = Set<String>()
        return codedCaps.flatMap { factories(accepting: $0.caps) }.filter { seen.insert($0.name).inserted }
    }

    private static func factories(accepting capsText: String) -> [Candidate] {
        GStreamer.initialize()
        guard let caps = Caps(capsText) else { return [] }
        return CodecSupport.factories(typeDecoder | typeVideo, accepting: caps, minimumRank: GST_RANK_NONE)
            .map { Candidate(name: $0.name, rank: $0.rank, hardware: $0.klass.contains("Hardware")) }
            .sorted { ($0.rank, $1.name) > ($1.rank, $0.name) }
    }

    private static func setRank(_ name: String, _ rank: UInt32) {
        guard let factory = gst_element_factory_find(name) else { return }
        defer { gst_object_unref(UnsafeMutableRawPointer(factory)) }
        gst_plugin_feature_set_rank(factory, rank)
    }
}
