import C1nkGLib
import C1nkPipeline
import CGStreamer
import FoundationEssentials
import Glibc

/// A video decoder that fails during a call (a hardware decoder whose
/// driver gives up, say) is replaced by the next one, in most cases the
/// software decoder, within one keyframe, and the call goes on; the failed
/// one is given up for the rest of the process (`VideoDecoders.giveUp`).
///
/// A decoder that errors returns an error flow upstream, which would stop
/// the thread that receives the door's video (its jitterbuffer's task
/// pauses and the call fails). So each decodebin or decoder of the door's
/// video has an `errorignore` before it, which turns that flow into OK: the
/// error still reaches the bus, where it is taken as the decoder's.
extension AnswerSession {
    /// A decodebin (or a decoder) of the door's video and the errorignore before it.
    struct DecoderGuard {
        let shield: Element
        var decoding: Element
        var padAdded: SignalConnection?
    }

    static let autoplugging: Set<String> = ["decodebin", "decodebin3"]

    /// Whether `element` decodes video itself, or plugs what does.
    static func decodesVideo(_ element: Element) -> Bool {
        guard let factory = element.factory else { return false }
        if autoplugging.contains(factory.name) { return true }
        let klass = factory.klass
        return klass.contains("Decoder") && klass.contains("Video")
    }

    /// Each decodebin or video decoder downstream of `video-in` in the call's
    /// own bin (the description's), before any sink.
    func videoDecodingElements() -> [Element] {
        guard let start = bin.element(named: "video-in") else { return [] }
        var found: [Element] = [], next = [start], seen = Set<UnsafeMutableRawPointer>()
        while let element = next.popLast(), seen.count < 256 {
            guard seen.insert(UnsafeMutableRawPointer(element.pointer)).inserted else { continue }
            if element != start && Self.decodesVideo(element) {
                if element.parent == bin { found.append(element) }
                continue
            }
            for pad in element.sourcePads { if let downstream = pad.peer?.parent { next.append(downstream) } }
        }
        return found
    }

    /// Puts an errorignore before each of them (at build, before the pipeline runs).
    func guardVideoDecoders() {
        for decoding in videoDecodingElements() {
            guard let sink = decoding.staticPad("sink"), let upstream = sink.peer,
                  let shield = Element.make("errorignore", name: "decoder-guard-\(decoderGuards.count)"),
                  let shieldSink = shield.staticPad("sink"), let shieldSource = shield.staticPad("src") else { continue }
            shield.set("convert-to", fromString: "ok")
            // While a replacement's pad is not linked yet (decodebin adds it at its first caps).
            shield.set("ignore-notlinked", fromString: "true")
            _ = bin.add(shield)
            _ = upstream.unlink(sink)
            guard upstream.link(shieldSink) == GST_PAD_LINK_OK, shieldSource.link(sink) == GST_PAD_LINK_OK else {
                log.warning("call \(callId): could not guard \(decoding.name); a failing video decoder will end the call")
                continue
            }
            decoderGuards.append(DecoderGuard(shield: shield, decoding: decoding, padAdded: nil))
        }
    }

    /// The guarded decodebin or decoder an error came from, and the name of the decoder inside it.
    func failedVideoDecoder(_ source: UnsafeMutablePointer<GstObject>?) -> (index: Int, decoder: String)? {
        for (index, entry) in decoderGuards.enumerated() where PipelineLinks.isInside(source, entry.decoding.pointer) {
            var decoder = entry.decoding.factory?.name ?? "decoder"
            var object = source
            while let current = object, UnsafeMutableRawPointer(current) != UnsafeMutableRawPointer(entry.decoding.pointer) {
                if c1nk_object_is_a(current, gst_element_get_type()) != 0, let factory = Element(retaining: PointerCast.cast(current, to: GstElement.self)).factory,
                   factory.klass.contains("Decoder") {
                    decoder = factory.name
                    break
                }
                object = current.pointee.parent
            }
            return (index, decoder)
        }
        return nil
    }

    /// Replaces the failed decoding element with a new one, which takes the
    /// next decoder now that the failed one is given up, and asks the door
    /// for a keyframe. Without another decoder the call fails as before.
    func replaceVideoDecoder(at index: Int, failed decoder: String, reason: String) {
        guard !stopped, index < decoderGuards.count else { return }
        let entry = decoderGuards[index]
        VideoDecoders.giveUp(decoder, reason: "it failed in call \(callId): \(reason)")
        guard let codec = offer.videoCodec, let next = VideoDecoders.choice(for: codec), next.name != decoder else {
            fail("the video decoder \(decoder) failed and there is no other for \(offer.videoCodec ?? "the door's video"): \(reason)")
            return
        }
        let old = entry.decoding
        let autoplugs = old.factory.map { Self.autoplugging.contains($0.name) } ?? false
        guard let replacement = Element.make(autoplugs ? (old.factory?.name ?? "decodebin") : next.name),
              let shieldSource = entry.shield.staticPad("src"), let newSink = replacement.staticPad("sink") else {
            fail("the video decoder \(decoder) failed and \(next.name) could not be made: \(reason)")
            return
        }
        let downstream = old.sourcePads.compactMap(\.peer).first
        if let oldSink = old.staticPad("sink") { _ = shieldSource.unlink(oldSink) }
        for pad in old.sourcePads { if let peer = pad.peer { _ = pad.unlink(peer) } }
        old.setLockedState(true)
        _ = bin.remove(old)
        retiredDecoders.append(old)
        Self.letGo(old)
        _ = bin.add(replacement)
        var padAdded: SignalConnection?
        if autoplugs, let downstream {
            // Streaming thread: only posts; the pad is linked on the main context.
            padAdded = replacement.connect("pad-added") { [weak self] (added: gpointer?) in
                guard let pad = Pad(retaining: added) else { return }
                MainContext.post { self?.linkReplacement(pad, to: downstream) }
            }
        } else if let downstream, let source = replacement.staticPad("src") {
            _ = source.link(downstream)
        }
        _ = shieldSource.link(newSink)
        _ = replacement.syncStateWithParent()
        decoderGuards[index] = DecoderGuard(shield: entry.shield, decoding: replacement, padAdded: padAdded)
        requestDoorKeyframe()
        log.warning("call \(callId): the video decoder \(decoder) failed (\(reason)); the call goes on with \(next.name)")
        onDecoder?(next.name, next.hardware, decoder, reason)
    }

    /// The decoder inside the first decodebin (or the decoder itself) of the door's video.
    func currentVideoDecoder() -> (name: String, hardware: Bool)? {
        for entry in decoderGuards {
            let candidates = entry.decoding.asBin.map(\.children) ?? [entry.decoding]
            for element in candidates {
                guard let factory = element.factory, factory.klass.contains("Decoder"), factory.klass.contains("Video") else { continue }
                return (factory.name, factory.klass.contains("Hardware"))
            }
        }
        return nil
    }

    private func linkReplacement(_ pad: Pad, to downstream: Pad) {
        guard !stopped, !downstream.isLinked, pad.link(downstream) == GST_PAD_LINK_OK else { return }
        // What the door sent while the new decoder had no way out is gone: a keyframe starts it.
        requestDoorKeyframe()
    }

    func requestDoorKeyframe() {
        _ = inputs.pad(for: "video")?.pushEvent(KeyframeRequests.upstreamRequest())
    }

    /// The decoder may be stuck in its driver: NULL on a thread of its own.
    private static func letGo(_ element: Element) {
        let box = ElementBox(element)
        detachThread { _ = box.element.setState(GST_STATE_NULL) }
    }

    private final class ElementBox: @unchecked Sendable {
        let element: Element
        init(_ element: Element) { self.element = element }
    }
}
