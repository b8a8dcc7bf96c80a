extension DoorMediaSession {
    /// The video codec a door sends (`--codec`): its encoder and payloader
    /// as a description, and the RTP caps it leaves with.
    public enum VideoCodec: String, CaseIterable, Sendable {
        case vp8, h264, vp9

        var encoder: String {
            switch self {
            case .vp8: return "vp8enc deadline=1 cpu-used=8 keyframe-max-dist=60 error-resilient=partitions ! rtpvp8pay pt=96"
            case .h264: return "x264enc tune=zerolatency speed-preset=ultrafast key-int-max=60 ! video/x-h264,profile=constrained-baseline ! rtph264pay pt=102 config-interval=-1 aggregate-mode=zero-latency"
            case .vp9: return "vp9enc deadline=1 cpu-used=8 keyframe-max-dist=60 ! rtpvp9pay pt=98"
            }
        }

        /// The encoder's element factory.
        var encoderFactory: String {
            switch self {
            case .vp8: return "vp8enc"
            case .h264: return "x264enc"
            case .vp9: return "vp9enc"
            }
        }

        /// The encoder of a door that follows congestion feedback, set up as
        /// libwebrtc sets its own: constant-rate control with a short buffer,
        /// keyframes capped at three frames' worth, none but those asked for.
        func adaptiveEncoder(kbps: Int) -> String {
            switch self {
            case .vp8, .vp9:
                return "\(encoderFactory) deadline=1 cpu-used=8 keyframe-max-dist=3000 target-bitrate=\(kbps * 1000) end-usage=cbr"
                    + " undershoot=100 overshoot=15 buffer-size=1000 buffer-initial-size=500 buffer-optimal-size=600"
                    + " max-intra-bitrate=300 max-quantizer=63 ! " + (self == .vp8 ? "rtpvp8pay pt=96" : "rtpvp9pay pt=98")
            case .h264:
                return encoder.replacing("key-int-max=60 ", with: "key-int-max=3000 bitrate=\(kbps) vbv-buf-capacity=300 ")
            }
        }

        /// The encoder aiming at `kbps` (0: its default rate).
        func encoder(kbps: Int) -> String {
            guard kbps > 0 else { return encoder }
            switch self {
            case .vp8: return encoder.replacing("vp8enc ", with: "vp8enc target-bitrate=\(kbps * 1000) ")
            case .h264: return encoder.replacing("x264enc ", with: "x264enc bitrate=\(kbps) vbv-buf-capacity=300 ")
            case .vp9: return encoder.replacing("vp9enc ", with: "vp9enc target-bitrate=\(kbps * 1000) ")
            }
        }

        /// The encoder's property (and its value as a string) that retargets
        /// a running encoder to `kbps`: x264enc counts kbit/s, the VPx
        /// encoders bit/s.
        func rateProperty(kbps: Int) -> (name: String, value: String) {
            switch self {
            case .h264: return ("bitrate", String(kbps))
            case .vp8, .vp9: return ("target-bitrate", String(kbps * 1000))
            }
        }

        var rtpCaps: String {
            switch self {
            case .vp8: return "application/x-rtp,media=video,encoding-name=VP8,payload=96,clock-rate=90000"
            case .h264: return "application/x-rtp,media=video,encoding-name=H264,payload=102,clock-rate=90000"
            case .vp9: return "application/x-rtp,media=video,encoding-name=VP9,payload=98,clock-rate=90000"
            }
        }
    }

    /// The voice codec a door offers (`--audio-codec`). Opus is offered with
    /// `useinbandfec=1;usedtx=1`, as browsers do.
    public enum AudioCodec: String, CaseIterable, Sendable {
        case opus, pcmu, pcma

        var encoder: String {
            switch self {
            case .opus: return "opusenc inband-fec=true dtx=true ! rtpopuspay pt=111"
            case .pcmu: return "audioresample ! audio/x-raw,rate=8000,channels=1 ! mulawenc ! rtppcmupay pt=0"
            case .pcma: return "audioresample ! audio/x-raw,rate=8000,channels=1 ! alawenc ! rtppcmapay pt=8"
            }
        }

        var rtpCaps: String {
            switch self {
            case .opus: return "application/x-rtp,media=audio,encoding-name=OPUS,payload=111,clock-rate=48000,useinbandfec=(string)1,usedtx=(string)1"
            case .pcmu: return "application/x-rtp,media=audio,encoding-name=PCMU,payload=0,clock-rate=8000"
            case .pcma: return "application/x-rtp,media=audio,encoding-name=PCMA,payload=8,clock-rate=8000"
            }
        }
    }
}
