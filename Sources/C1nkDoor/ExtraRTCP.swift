import C1nkGLib
import CGStreamer
import Synchronization

/// RTCP packets of the caller's making that the simulated door adds to what
/// it sends, as a door whose feedback lies would (a REMB of 1 kbit/s, TWCC
/// for packets never sent, a packet type nobody knows, a length that runs
/// past the end).
///
/// Each packet is appended to the next compound RTCP packet the door's
/// rtpsession sends, one per compound, on the session's `send_rtcp_src`:
/// there RTCP is still plain, so the answerer receives the packet encrypted
/// and authenticated as the door's own (SRTCP), and parses it. Bytes changed
/// after encryption would only fail authentication.
///
/// Door-side fixture: the probe runs on the RTCP thread and only takes the
/// next packet from a lock.
final class ExtraRTCP: Sendable {
    private struct State {
        var pending: [[UInt8]] = []
        var sent = 0
        var probed = false
    }

    private let state = Mutex(State())

    /// Packets appended to what the door sent so far.
    var sent: Int { state.withLock { $0.sent } }

    /// Queues `packet` for the next compound RTCP packet (its sender's SSRC,
    /// bytes 4–7, becomes the compound's); false when the
    /// session has no rtpsession to send it from (not connected yet).
    func send(_ packet: [UInt8], from webrtc: Bin) -> Bool {
        guard !packet.isEmpty else { return true }
        let needsProbe = state.withLock { state -> Bool in
            defer { state.probed = true }
            return !state.probed
        }
        if needsProbe {
            // One session: the door bundles its media.
            guard let session = webrtc.elements.first(where: { $0.factoryName == "rtpsession" }),
                  let pad = session.staticPad("send_rtcp_src") else {
                state.withLock { $0.probed = false }
                return false
            }
            pad.addProbe(GST_PAD_PROBE_TYPE_BUFFER) { [self] info in
                guard var packet = takeNext(),
                      let buffer = info.pointee.data?.assumingMemoryBound(to: GstBuffer.self) else { return GST_PAD_PROBE_OK }
                // The sender's SSRC, as the compound's first packet (SR or RR) gives it.
                var ssrc = [UInt8](repeating: 0, count: 4)
                if packet.count >= 8, gst_buffer_extract(buffer, 4, &ssrc, 4) == 4 { packet.replaceSubrange(4..<8, with: ssrc) }
                packet.withUnsafeBufferPointer { c1nk_probe_append_bytes(info, $0.baseAddress, gsize($0.count)) }
                return GST_PAD_PROBE_OK
            }
        }
        state.withLock { $0.pending.append(packet) }
        // Not a regular interval's wait (seconds): the next packet soon after.
        if let session = webrtc.elements.first(where: { $0.factoryName == "rtpsession" }) {
            c1nk_rtpsession_request_rtcp(session.pointer)
        }
        return true
    }

    private func takeNext() -> [UInt8]? {
        state.withLock { state in
            guard !state.pending.isEmpty else { return nil }
            state.sent += 1
            return state.pending.removeFirst()
        }
    }
}

extension DoorMediaSession {
    /// Adds `packet` (RTCP, whole or not) to the next compound RTCP packet
    /// the door sends, its bytes 4–7 (the sender's SSRC) made the door's
    /// own; false before the session is connected.
    func sendRTCP(_ packet: [UInt8]) -> Bool { extraRTCP.send(packet, from: webrtcElement) }

    /// Packets of `sendRTCP` that have left.
    var extraRTCPSent: Int { extraRTCP.sent }
}
