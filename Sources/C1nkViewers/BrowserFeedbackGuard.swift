import C1nkGLib
import CGStreamer
import Synchronization

/// What a browser's RTCP may ask of its viewer, a hostile page on the home's
/// network included. A probe where the browser's RTCP enters the viewer's RTP
/// session (after SRTP, so only that browser reaches it) drops, before the
/// session sees them:
/// - RTCP that does not parse (truncated, wrong or huge lengths);
/// - past `packetsPerSecond`, every packet: a flood of PLIs, FIRs, anything
///   (a browser sends a few a second: Chromium one each 200 ms);
/// - RTCP naming a sender SSRC past the first `maximumSSRCs`: each new one is a
///   source the session keeps (~2 KB) until it times out, which takes longer
///   the more sources there are;
/// - NACKs asking for more packets than the retransmission budget holds: one
///   packet earned for each of the door's video packets sent to the browser
///   (the payloader's sequence number, read as RTCP comes),
///   at most `retransmissionBurst` kept (rtprtxsend's history is 100 packets),
///   so a browser can at most double what its viewer sends. rtprtxsend queues
///   every retransmission asked for, without a limit: NACKs for its whole
///   history a thousand times a second grew the answerer by 280 MB in 4 s.
///   A NACK asking for more than the history counts as the history (no more
///   can be resent): a browser back from a drop-out asks for the whole gap
///   at once, and the resending of its last packets gets its picture back
///   in 15 ms, against 1.4 s for the next keyframe when that NACK was cut.
///   Cut NACKs leave the rest of their packet (reports, keyframe requests).
/// The time of the browser's last RTCP, dropped or not, says whether it is
/// still there (`secondsSinceHeard`). Streaming threads, and the main context.
final class BrowserFeedbackGuard: Sendable {
    struct Limits {
        var packetsPerSecond = 200.0
        var maximumSSRCs = 8
        var retransmissionBurst = 100
    }

    enum Verdict: Int, CaseIterable {
        case admitted, malformed, flooding, unknownSSRC, pastRetransmissionBudget
    }

    /// Why RTCP with `verdict` was dropped, for the log.
    func reason(_ verdict: Verdict) -> String {
        switch verdict {
        case .admitted: "admitted"
        case .malformed: "malformed"
        case .flooding: "past \(Int(limits.packetsPerSecond)) packets a second"
        case .unknownSSRC: "naming more than \(limits.maximumSSRCs) SSRCs"
        case .pastRetransmissionBudget: "asking for more retransmissions than the video's own packets (those NACKs cut, the rest taken)"
        }
    }

    let limits: Limits
    private let state: Mutex<State>

    private struct State {
        var tokens: Double
        var refilled: Double
        var heard: Double
        var ssrcs: Set<UInt32> = []
        var retransmissions: Int
        var lastSequence: Int?
        var loss = LossWindow()
        var counts = [Int](repeating: 0, count: Verdict.allCases.count)
    }

    /// `now`: when the viewer starts (the browser's silence counts from then).
    init(limits: Limits = Limits(), now: Double) {
        self.limits = limits
        state = Mutex(State(tokens: limits.packetsPerSecond, refilled: now, heard: now,
                            retransmissions: limits.retransmissionBurst))
    }

    /// The door's video sent to the browser: `packets` more it may ask to be resent.
    func sent(videoPackets packets: Int) {
        state.withLock { $0.retransmissions = min(limits.retransmissionBurst, $0.retransmissions + packets) }
    }

    /// The video payloader's last sequence number: the packets sent since
    /// the last one read are earned (read as RTCP comes, not counted per packet).
    func sent(upToSequence sequence: Int) {
        state.withLock { state in
            if let last = state.lastSequence {
                state.retransmissions = min(limits.retransmissionBurst, state.retransmissions + (sequence - last) & 0xffff)
            }
            state.lastSequence = sequence
        }
    }

    /// Whether the browser's RTCP `buffer` goes on to the RTP session, at
    /// `now` (seconds), and what it says of the link (`LossWindow`).
    func admit(_ buffer: UnsafeMutablePointer<GstBuffer>, now: Double) -> (verdict: Verdict, link: LossWindow.Reading) {
        let contents = RTCPContents(buffer)
        return state.withLock { state in
            let silence = now - state.heard
            state.heard = max(state.heard, now)
            state.tokens = min(limits.packetsPerSecond, state.tokens + (now - state.refilled) * limits.packetsPerSecond)
            state.refilled = now
            let verdict = judge(contents, &state)
            state.counts[verdict.rawValue] += 1
            // The link's news: an outage whatever the packet says; loss only from reports taken.
            if silence > state.loss.outageSilence {
                state.loss.restart(verdict == .admitted ? contents?.reports ?? [] : [], now: now)
                return (verdict, .outage)
            }
            guard verdict == .admitted, let contents else { return (verdict, .steady) }
            return (verdict, state.loss.add(contents.reports, now: now))
        }
    }

    private func judge(_ contents: RTCPContents?, _ state: inout State) -> Verdict {
        guard let contents else { return .malformed }
        guard state.tokens >= 1 else { return .flooding }
        state.tokens -= 1
        let named = state.ssrcs.union(contents.ssrcs)
        guard named.count <= limits.maximumSSRCs else { return .unknownSSRC }
        let asked = min(contents.retransmissionsAsked, limits.retransmissionBurst)
        guard asked <= state.retransmissions else { return .pastRetransmissionBudget }
        state.ssrcs = named
        state.retransmissions -= asked
        return .admitted
    }

    /// Seconds since the browser's last RTCP (or its answer), at `now`.
    func secondsSinceHeard(now: Double) -> Double { state.withLock { now - $0.heard } }

    /// How many of the browser's RTCP buffers had each verdict.
    func count(_ verdict: Verdict) -> Int { state.withLock { $0.counts[verdict.rawValue] } }

    /// What was dropped, for the viewer's log line; nil when nothing was.
    var droppedSummary: String? {
        let counts = state.withLock { $0.counts }
        let parts = Verdict.allCases.filter { $0 != .admitted && counts[$0.rawValue] > 0 }
            .map { "\(counts[$0.rawValue]) \(reason($0))" }
        return parts.isEmpty ? nil : parts.joined(separator: ", ")
    }

    /// Probes where the browser's RTCP enters `webrtcbin`'s RTP sessions
    /// (rtpbin's `recv_rtcp_sink_N`); `onFirstDrop` runs on the main context
    /// the first time one is dropped; `onLink` on the streaming thread, with
    /// the time (monotonic µs), for admitted RTCP that reports loss, and for
    /// any that is the first after an outage. False when there is no such pad yet.
    /// `videoSequence` reads the video payloader's last sequence number (`sent(upToSequence:)`).
    func attach(to webrtcbin: Bin, videoSequence: (@Sendable () -> Int)? = nil, onFirstDrop: @escaping @Sendable (Verdict) -> Void,
                onLink: @escaping @Sendable (LossWindow.Reading, Int) -> Void = { _, _ in }) -> Bool {
        let pads = webrtcbin.elements.filter { $0.factoryName == "rtpbin" }
            .flatMap(\.sinkPads).filter { $0.name.hasPrefix("recv_rtcp_sink_") }
        let warned = Atomic<Bool>(false)
        for pad in pads {
            pad.addProbe(GstPadProbeType(GST_PAD_PROBE_TYPE_BUFFER.rawValue | GST_PAD_PROBE_TYPE_BUFFER_LIST.rawValue)) { [self] info in
                let micros = g_get_monotonic_time(), now = Double(micros) / 1_000_000
                if let videoSequence { sent(upToSequence: videoSequence()) }
                var verdict = Verdict.admitted
                var link = LossWindow.Reading.steady
                if info.pointee.type.rawValue & GST_PAD_PROBE_TYPE_BUFFER.rawValue != 0 {
                    guard let buffer = info.pointee.data?.assumingMemoryBound(to: GstBuffer.self) else { return GST_PAD_PROBE_OK }
                    (verdict, link) = admit(buffer, now: now)
                    if verdict == .pastRetransmissionBudget {
                        // The NACKs are cut; the reports and keyframe requests beside them go on
                        // (a browser back from a drop-out asks for a keyframe and for the whole gap at once).
                        let writable = RTCPContents.cuttingNACKs(from: buffer)
                        info.pointee.data = UnsafeMutableRawPointer(writable.buffer)
                        if writable.rest {
                            if !warned.exchange(true, ordering: .relaxed) { MainContext.post { onFirstDrop(verdict) } }
                            if link != .steady { onLink(link, micros) }
                            return GST_PAD_PROBE_OK
                        }
                    }
                } else if let list = info.pointee.data.map(OpaquePointer.init) {
                    // A list goes whole or not at all.
                    for index in 0..<gst_buffer_list_length(list) {
                        guard let buffer = gst_buffer_list_get(list, index) else { continue }
                        let each = admit(buffer, now: now)
                        if each.verdict != .admitted { verdict = each.verdict }
                        link = max(link, each.link)
                    }
                }
                if link != .steady { onLink(link, micros) }
                guard verdict != .admitted else { return GST_PAD_PROBE_OK }
                if !warned.exchange(true, ordering: .relaxed) { MainContext.post { onFirstDrop(verdict) } }
                return GST_PAD_PROBE_DROP
            }
        }
        return !pads.isEmpty
    }
}

/// What one RTCP compound packet names: the SSRCs its sender reports as its
/// own (the ones an RTP session keeps a source for), how many packets its
/// NACKs ask to be resent, and its report blocks: how many packets of the
/// stream each reports on were lost so far, and their interarrival jitter.
/// Nil when it does not parse.
struct RTCPContents {
    var ssrcs: Set<UInt32> = []
    var retransmissionsAsked = 0
    var reports: [LossWindow.Report] = []

    init?(_ buffer: UnsafeMutablePointer<GstBuffer>) {
        // The check rtpsession makes (reduced-size RTCP allowed): every length within the buffer.
        guard gst_rtcp_buffer_validate_reduced(buffer) != 0 else { return nil }
        var rtcp = GstRTCPBuffer()
        guard gst_rtcp_buffer_map(buffer, GST_MAP_READ, &rtcp) != 0 else { return nil }
        defer { gst_rtcp_buffer_unmap(&rtcp) }
        var packet = GstRTCPPacket()
        var more = gst_rtcp_buffer_get_first_packet(&rtcp, &packet) != 0
        while more {
            read(&packet)
            more = gst_rtcp_packet_move_to_next(&packet) != 0
        }
    }

    private mutating func read(_ packet: inout GstRTCPPacket) {
        switch gst_rtcp_packet_get_type(&packet) {
        case GST_RTCP_TYPE_SR:
            var ssrc: guint32 = 0
            gst_rtcp_packet_sr_get_sender_info(&packet, &ssrc, nil, nil, nil, nil)
            ssrcs.insert(ssrc)
            readReportBlocks(&packet)
        case GST_RTCP_TYPE_RR:
            ssrcs.insert(gst_rtcp_packet_rr_get_ssrc(&packet))
            readReportBlocks(&packet)
        case GST_RTCP_TYPE_SDES:
            var item = gst_rtcp_packet_sdes_first_item(&packet) != 0
            while item {
                ssrcs.insert(gst_rtcp_packet_sdes_get_ssrc(&packet))
                item = gst_rtcp_packet_sdes_next_item(&packet) != 0
            }
        case GST_RTCP_TYPE_XR:
            ssrcs.insert(gst_rtcp_packet_xr_get_ssrc(&packet))
        case GST_RTCP_TYPE_RTPFB, GST_RTCP_TYPE_PSFB:
            ssrcs.insert(gst_rtcp_packet_fb_get_sender_ssrc(&packet))
            guard gst_rtcp_packet_get_type(&packet) == GST_RTCP_TYPE_RTPFB,
                  gst_rtcp_packet_fb_get_type(&packet) == GST_RTCP_RTPFB_TYPE_NACK,
                  let fci = gst_rtcp_packet_fb_get_fci(&packet) else { return }
            // Each entry: a packet id and a bitmask of the 16 after it.
            for entry in 0..<Int(gst_rtcp_packet_fb_get_fci_length(&packet)) {
                let mask = UInt16(fci[entry * 4 + 2]) << 8 | UInt16(fci[entry * 4 + 3])
                retransmissionsAsked += 1 + mask.nonzeroBitCount
            }
        default:
            break
        }
    }

    /// `buffer` (the probe's, given up) without its NACKs, writable; `rest`:
    /// whether anything is left to pass on.
    static func cuttingNACKs(from buffer: UnsafeMutablePointer<GstBuffer>) -> (buffer: UnsafeMutablePointer<GstBuffer>, rest: Bool) {
        let writable = UnsafeMutableRawPointer(gst_mini_object_make_writable(&buffer.pointee.mini_object))
            .assumingMemoryBound(to: GstBuffer.self)
        var rtcp = GstRTCPBuffer()
        guard gst_rtcp_buffer_map(writable, GstMapFlags(GST_MAP_READ.rawValue | GST_MAP_WRITE.rawValue), &rtcp) != 0 else { return (writable, false) }
        defer { gst_rtcp_buffer_unmap(&rtcp) }
        var packet = GstRTCPPacket()
        var more = gst_rtcp_buffer_get_first_packet(&rtcp, &packet) != 0
        var kept = 0
        while more {
            if gst_rtcp_packet_get_type(&packet) == GST_RTCP_TYPE_RTPFB, gst_rtcp_packet_fb_get_type(&packet) == GST_RTCP_RTPFB_TYPE_NACK {
                more = gst_rtcp_packet_remove(&packet) != 0
            } else {
                kept += 1
                more = gst_rtcp_packet_move_to_next(&packet) != 0
            }
        }
        return (writable, kept > 0)
    }

    /// A report block's cumulative number of packets lost: expected less received.
    private mutating func readReportBlocks(_ packet: inout GstRTCPPacket) {
        for index in 0..<gst_rtcp_packet_get_rb_count(&packet) {
            var source: guint32 = 0, jitter: guint32 = 0
            var lost: gint32 = 0
            gst_rtcp_packet_get_rb(&packet, index, &source, nil, &lost, nil, &jitter, nil, nil)
            reports.append(LossWindow.Report(source: source, cumulativeLost: Int(lost), jitter: Int(jitter)))
        }
    }
}
