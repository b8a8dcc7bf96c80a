import C1nkCall
import C1nkMedia

extension Answerer {
    public enum AnswerMode: String, Sendable { case auto, manual }

    public struct Options {
        public var media = MediaConfiguration()
        public var answerMode = AnswerMode.manual
        /// Auto mode: seconds between the ring and the accept.
        public var answerDelay: Double = 0
        /// Seconds after the accept to open the door / hang up (scripting).
        public var openDoorAfter: Double?
        public var hangupAfter: Double?
        /// Stop after this many calls have ended.
        public var exitAfterCalls: Int?
        /// No WebRTC connection this long after a ring ends the call;
        /// media lost this long mid-call ends it `lost`.
        public var connectTimeout: Double = 10
        /// No `join-ok` this long after a rejoin ends the call `lost`.
        public var rejoinTimeout: Double = 10
        /// No `door-open-ok` this long after `open-door`: `door-open-failed`.
        public var doorOpenTimeout: Double = 5
        /// A server `error` naming our call ends it after this long unless media flows.
        public var serverErrorGrace: Double = 5
        /// The ringtone's audio source description; nil for silence.
        public var ringtone: String? = Ringtone.defaultDescription
        /// `--speaker-volume`: the master volume of everything played (1 = unchanged).
        public var speakerVolume: Double = 1
        /// Seconds between two `levels` events during a call.
        public var levelsInterval: Double = 1
        /// Asked before a call is recorded; a text refuses the recording
        /// (an `error` event) and the call goes on unrecorded.
        public var beforeRecording: (() -> String?)?
        public init() {}

        /// How long the state machine's `timer` runs before it times out.
        public func seconds(for timer: CallMachine.Timer) -> Double {
            switch timer {
            case .connect: connectTimeout
            case .rejoin: rejoinTimeout
            case .doorOpen: doorOpenTimeout
            case .serverErrorGrace: serverErrorGrace
            }
        }
    }

    /// Figures of the last call, for the demo summary and benchmarks; times
    /// are the answerer's clock's (`TimerClock.now`).
    public struct CallFigures: Equatable {
        public var callId = ""
        public var ringAt: Double?
        public var mediaConnectedAt: Double?
        public var firstFrameAt: Double?
        public var acceptedAt: Double?
        public var framesRendered = 0
        public var doorOpened = false
        public var endReason: String?
        public var speakerPeakWhileGated = -Double.infinity
        public var speakerPeakWhileEnabled = -Double.infinity

        public var ringToFirstFrame: Double? { firstFrameAt.flatMap { f in ringAt.map { f - $0 } } }
        public var ringToMediaConnected: Double? { mediaConnectedAt.flatMap { m in ringAt.map { m - $0 } } }
    }
}
