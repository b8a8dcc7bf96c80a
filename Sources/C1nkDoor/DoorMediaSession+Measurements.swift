import C1nkGLib
import C1nkMedia
import C1nkPipeline
import C1nkProbes
import CGStreamer

extension DoorMediaSession {
    /// The encoder's targets as the feedback moved them: (monotonic seconds, kbit/s).
    public var encoderRates: [(time: Double, kbps: Int)] { adaptation?.rate.history ?? [] }

    /// What the impaired network did so far (nil without impairment).
    public var networkCounts: (videoSent: Int, videoDropped: Int, retransmissions: Int, outageDropped: Int)? {
        impairedLink.map { let c = $0.counted; return (c.videoSent, c.videoDropped, c.retransmissions, c.outageDropped) }
    }

    /// Measurement: onsets of tone bursts leaving the element `name` of the
    /// door's voice (as captured), or arriving at what the door hears
    /// (`heard-level`, played as it arrives).
    public func onsetProbe(at name: String) -> AudioOnsetProbe? {
        name == "heard-level"
            ? AudioOnsetProbe.attach(to: name, in: pipeline.element, pad: "sink", timing: .arrival)
            : AudioOnsetProbe.attach(to: name, in: pipeline.element, timing: .capture)
    }

    /// Where each `level` of the door's speaker reports: the band it measures.
    enum HeardMeter: Equatable {
        case all, door, resident

        init(levelNamed name: String?) {
            switch name {
            case "heard-door": self = .door
            case "heard-resident": self = .resident
            default: self = .all
            }
        }
    }

    /// The pipeline's bus (main context, borrowed message): the levels heard,
    /// and errors as failures.
    func handle(_ message: UnsafeMutablePointer<GstMessage>) {
        if message.pointee.type == GST_MESSAGE_ELEMENT, let level = AudioLevel.rms(from: message) {
            switch HeardMeter(levelNamed: message.pointee.src.map({ Gst.name($0) })) {
            case .door: onHeardBand?("door", level)
            case .resident: onHeardBand?("resident", level)
            case .all: onHeardLevel?(level)
            }
        } else if message.pointee.type == GST_MESSAGE_ERROR {
            onFailure?(PipelineMessage.describeError(message))
        }
    }
}
