import C1nkGLib
import C1nkMedia
import C1nkPipeline
import C1nkProbes
import CGStreamer
import Glibc

extension DoorMediaSession {
    /// The door's camera: test pattern, the door's name, optionally the time
    /// stamp, the encoder and its RTP payloader. Also used alone by the benchmark's baseline.
    public static func camera(_ options: Options, label: String? = nil, name: String = "door-camera", record: StampedFrames? = nil) throws -> Bin {
        let text = (label ?? options.doorName).replacing("\"", with: "'")
        let bin = options.preEncoded
            ? try PreEncodedCamera.make(options, label: text, name: name, encoder: encoder(options), rtpOutput: rtpOutput(options))
            : Bin(adopting: try PipelineBin.make(
            "videotestsrc is-live=true \(scene(options)) ! video/x-raw,format=I420,width=\(options.width),height=\(options.height),framerate=\(options.framerate)/1"
            + " ! textoverlay text=\"\(text)\" valignment=top halignment=left font-desc=\"Sans 24\" ! videoconvert ! queue max-size-buffers=2 leaky=downstream"
            // After the queue: a frame a busy door drops before encoding gets no sequence number.
            + " ! identity name=stamp silent=true"
            + " ! \(encoder(options)) ! "
            + rtpOutput(options),
            name: name, output: true))
        if options.jitterMilliseconds > 0, let output = bin.staticPad("src") {
            delayFrames(on: output, upTo: options.jitterMilliseconds)
        }
        if options.adaptsToFeedback, let pad = bin.element(named: "stamp")?.staticPad("sink") {
            // Added before the stamp's own probe, so it runs first.
            dropCatchUpFrames(on: pad, framesPerSecond: options.framerate)
        }
        if options.stampTime, let pad = bin.element(named: "stamp")?.staticPad("src") {
            FrameStamp.stampFrames(on: pad.pointer, width: options.width, height: options.height, record: record)
        }
        return bin
    }

    /// The camera's encoder and payloader.
    static func encoder(_ options: Options) -> String {
        if options.adaptsToFeedback { return options.codec.adaptiveEncoder(kbps: Int(FeedbackRate().kbps)) }
        return options.codec.encoder(kbps: videoBudget(options)).replacing("=60 ", with: "=\(options.keyframeDistance) ")
    }

    /// What the camera sees. An adapting door shows a moving zone plate,
    /// whose cost follows the encoder's target (275 kbit/s at 300, 2 Mbit/s
    /// at 2000 in VP8, keyframes of 8 KB at 300), as a browser's camera does;
    /// the test pattern's noise alone needs ~700 kbit/s, whatever the target.
    private static func scene(_ options: Options) -> String {
        options.adaptsToFeedback ? "pattern=zone-plate kx2=8 ky2=8 kt=1" : "pattern=smpte"
    }

    /// The video's share of a capped link: 80 % of the cap less the voice
    /// (Opus, ~40 kbit/s with headers), leaving room for retransmissions.
    private static func videoBudget(_ options: Options) -> Int {
        guard options.network.bandwidthKbps > 0 else { return 0 }
        return max(50, (options.network.bandwidthKbps - 40) * 8 / 10)
    }

    /// The caps the camera's RTP leaves with, under another codec's name when
    /// the door announces one.
    static func rtpOutput(_ options: Options) -> String {
        guard let announced = options.announcedVideoCodec else {
            let feedback = options.adaptsToFeedback ? DoorRateAdaptation.extmapField.replacing("\"", with: "\\\"") : ""
            return "capsfilter name=\(PipelineBin.outputName) caps=\"\(options.codec.rtpCaps)\(feedback)\""
        }
        return "capsfilter caps=\"\(options.codec.rtpCaps)\" ! capssetter name=\(PipelineBin.outputName) join=true replace=false caps=\"application/x-rtp,encoding-name=\(announced)\""
    }

    /// A live test source held back (webrtcbin blocks the media until DTLS
    /// is up, and a door's session is ready before anyone rings) catches up
    /// afterwards with a burst of frames as fast as it can make them, which
    /// a narrow uplink cannot take. A camera or microphone gives what is
    /// there now: buffers closer together than half their duration are dropped.
    static func dropCatchUpFrames(on pad: Pad, framesPerSecond: Int) {
        var spacing = MinimumSpacing(microseconds: 500_000 / max(1, framesPerSecond))
        pad.addProbe(GST_PAD_PROBE_TYPE_BUFFER) { _ in
            spacing.admits(at: g_get_monotonic_time()) ? GST_PAD_PROBE_OK : GST_PAD_PROBE_DROP
        }
    }

    /// Holds the first packet of each frame back for a random time, on the
    /// sending thread (which also holds the frame's other packets back).
    private static func delayFrames(on pad: Pad, upTo milliseconds: Int) {
        var lastTimestamp = GstClockTime.max
        pad.addProbe(GST_PAD_PROBE_TYPE_BUFFER) { info in
            if let buffer = info.pointee.data?.assumingMemoryBound(to: GstBuffer.self), buffer.pointee.pts != lastTimestamp {
                lastTimestamp = buffer.pointee.pts
                usleep(useconds_t(Int.random(in: 0...milliseconds) * 1000))
            }
            return GST_PAD_PROBE_OK
        }
    }
}
