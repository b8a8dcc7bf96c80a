import C1nkMedia

extension DoorMediaSession {
    /// How the simulated door looks, sounds and sends: its codecs and
    /// picture, its voice, the network in front of it, and what it measures.
    public struct Options: Sendable {
        public var doorName = "Hlavný vchod"
        public var codec = VideoCodec.vp8
        public var width = 640
        public var height = 480
        public var framerate = 30
        public var ice = IceConfiguration()
        /// The visitor's voice: any audio source description; nil: the door
        /// offers no audio at all.
        public var audioSource: String? = "audiotestsrc is-live=true wave=sine freq=440 volume=0.4"
        public var audioCodec = AudioCodec.opus
        /// Also measure what comes back in two bands (`onHeardBand`): below
        /// 1.2 kHz (the door's own test voice, for echo tests) and 2.8–3.2 kHz
        /// (the resident's test voice, `EchoLoop`).
        public var analyseBands = false
        /// Draw the capture time into each frame (`FrameStamp`), for glass-to-glass measurements.
        public var stampTime = false
        /// Delay each video frame by a random 0…N ms before it leaves, as a
        /// jittery Wi-Fi link does (for latency-knob measurements).
        public var jitterMilliseconds = 0
        /// The encoding name the door announces for its video instead of the
        /// real one, as a door with a codec this machine cannot play does
        /// (e.g. "AV1"). The packets stay those of `codec`.
        public var announcedVideoCodec: String?
        /// The network between door and answerer (loss, jitter, outage …).
        public var network = NetworkImpairment()
        /// Offer RED/ULPFEC for the video besides NACK/RTX.
        public var fec = false
        /// Offer NACK with RTX for the video (as browsers do); false: a door
        /// that can only resend keyframes.
        public var nack = true
        /// Frames from one scheduled keyframe to the next (60: every 2 s at
        /// 30 fps); keyframes asked for (PLI) come besides.
        public var keyframeDistance = 60
        /// Offer transport-wide congestion control and follow the answerer's
        /// feedback with the encoder's rate (`FeedbackRate`), as a browser
        /// does; the encoder starts at 300 kbit/s.
        public var adaptsToFeedback = false
        /// Replay a clip encoded once at start instead of encoding every
        /// frame (`PreEncodedCamera`): a door that costs almost nothing, for
        /// measuring the answerer alone. No `stampTime`, no adapting rate. The
        /// default tone as the voice is pre-encoded too (`PreEncodedVoice`).
        public var preEncoded = false
        public init() {}

        /// The most the encoder is allowed when it adapts: ~0.2 bit per pixel.
        var adaptiveMaximumKbps: Double { min(4000, max(500, Double(width * height * framerate) * 0.2 / 1000)) }
    }
}
