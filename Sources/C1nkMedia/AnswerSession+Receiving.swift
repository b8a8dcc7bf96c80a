import C1nkGLib
import C1nkProbes
import CGStreamer

/// The door's streams as they arrive, on webrtcbin's streaming threads: each
/// new stream's first packet (`DoorStreams`), and each receiving pad linked
/// to what was prepared before the answer (`KeyframeAtLink`). Only what
/// exists before negotiation is touched here; the rest is posted.
extension AnswerSession {
    static func makeWebRTC(_ configuration: MediaConfiguration, streams: DoorStreams, inputs: PadTable, callId: String,
                           keyframeCounter: FrameCounter, earlyKeyframe: FrameCounter) throws -> WebRTCBin {
        try WebRTCBin(name: "webrtc", ice: configuration.ice, latencyMilliseconds: configuration.latencyMilliseconds,
                      onNewStream: { jitterbuffer, _ in
            RTPFirstPacket.onPayloadType(of: jitterbuffer) { payloadType, sink in
                switch streams.firstPacket(payloadType: payloadType) {
                case .voice: VoiceRetransmissions.turnOff(at: sink)
                case .video: KeyframeRequests.requestEarly(at: sink, counter: keyframeCounter)
                case .other: break
                }
            }
        }, onReceivingPad: { pad in
            link(pad, to: inputs, callId: callId, keyframeCounter: keyframeCounter, earlyKeyframe: earlyKeyframe)
        })
    }

    /// Streaming thread: links a receiving pad of webrtcbin to the input
    /// prepared for its medium, and returns.
    static func link(_ pad: Pad, to inputs: PadTable, callId: String, keyframeCounter: FrameCounter, earlyKeyframe: FrameCounter) {
        let media = pad.caps?.string("media") ?? "?"
        guard let target = inputs.pad(for: media) else { return }
        let result = pad.link(target)
        if result != GST_PAD_LINK_OK {
            MainContext.post { Log.callMedia.warning("call \(callId): cannot link the door's \(media) (\(result.rawValue))") }
        }
        switch KeyframeAtLink(media: media, linked: result == GST_PAD_LINK_OK, requestsSent: keyframeCounter.value.load(ordering: .relaxed)) {
        case .nothing:
            break
        case .askedAtFirstPacket:
            KeyframeRequests.count(on: pad, into: keyframeCounter)
            earlyKeyframe.value.store(1, ordering: .relaxed)
        case .askNow:
            KeyframeRequests.count(on: pad, into: keyframeCounter)
            pad.sendEvent(KeyframeRequests.upstreamRequest())
        }
    }
}
