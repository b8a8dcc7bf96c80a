import C1nkGLib
import CGStreamer

/// The door's video to a phone that takes it: its RTP as the call got it,
/// depayloaded and payloaded again with the phone's payload type (no
/// decoding, no encoding), sent in rtpbin's session 1 from the port pair we
/// offered. The phone's PLI or FIR reaches the depayloader's source pad
/// (`doorVideoDepayloader`) as an upstream force-key-unit event: whoever
/// wires the leg takes it there to the call's keyframe path, since the door
/// alone can make a keyframe.
extension PhoneLegMedia {
    struct VideoPlan {
        let codec: SIPVideoCodec
        let caps: Caps
        let answer: SDPAnswer.Video
    }

    /// Video when the phone took it and the door's codec is the one it took; nil: audio only, said why.
    func videoPlan(_ answer: SDPAnswer) -> VideoPlan? {
        guard let video = answer.video, videoPort != nil else { return nil }
        guard let seeing, let caps = Caps(seeing), let encoding = caps.string("encoding-name") else {
            Log.sip.info("phone leg media: the door's video had not started when the phone answered; audio only")
            return nil
        }
        guard SIPVideoCodec(encodingName: encoding) == video.codec else {
            Log.sip.info("phone leg media: the phone takes \(video.codec.rawValue), the door sends \(encoding.prefix(16)); audio only")
            return nil
        }
        return VideoPlan(codec: video.codec, caps: caps, answer: video)
    }

    /// Session 1 of the leg's rtpbin: the door's video out, the phone's RTCP in, its RTP (a camera) discarded.
    static func videoDescription(_ codec: SIPVideoCodec) -> String {
        """

        appsrc name=door-video is-live=true format=time do-timestamp=false block=false max-bytes=4000000 leaky-type=downstream \
        ! \(codec.elements.depayloader) name=vdepay ! \(codec.elements.payloader) name=vpay mtu=1200 ! rtpbin.send_rtp_sink_1
        rtpbin.send_rtp_src_1 ! udpsink name=vrtpsink sync=false async=false
        rtpbin.send_rtcp_src_1 ! udpsink name=vrtcpsink sync=false async=false
        udpsrc name=vrtcpsrc ! rtpbin.recv_rtcp_sink_1
        udpsrc name=vrtpsrc ! fakesink sync=false async=false
        """
    }

    /// Sets the video branch's values as properties; the (source, sink) pairs that share a socket.
    func startVideo(_ plan: VideoPlan, in pipeline: Pipeline) -> [(Element, Element)] {
        guard let videoPort, let source = pipeline.element(named: "door-video"), let payloader = pipeline.element(named: "vpay"),
              let depayloader = pipeline.element(named: "vdepay"),
              let rtpSink = pipeline.element(named: "vrtpsink"), let rtcpSink = pipeline.element(named: "vrtcpsink"),
              let rtpSource = pipeline.element(named: "vrtpsrc"), let rtcpSource = pipeline.element(named: "vrtcpsrc")
        else { return [] }
        source[caps: "caps"] = plan.caps
        payloader[int: "pt"] = plan.answer.payloadType
        for (element, port) in [(rtpSource, videoPort), (rtcpSource, videoPort + 1)] {
            element[bool: "reuse"] = false
            element[string: "address"] = address
            element[int: "port"] = port
        }
        rtpSink[string: "host"] = plan.answer.address
        rtpSink[int: "port"] = plan.answer.port
        rtcpSink[string: "host"] = plan.answer.address
        rtcpSink[int: "port"] = plan.answer.rtcpPort
        doorVideoSource = source
        doorVideoDepayloader = depayloader
        return [(rtpSource, rtpSink), (rtcpSource, rtcpSink)]
    }
}
