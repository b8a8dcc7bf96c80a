import C1nkMedia
import C1nkProtocol

/// What the answerer needs from a call's media session: the answer and the
/// candidates out, the connection's fate in, the audio gates, the figures.
/// `AnswerSession` (webrtcbin) is the real one; tests of the call flow give
/// the answerer a factory of their own and play the media's events.
public protocol CallMedia: AnyObject {
    var callId: String { get }
    var onAnswer: ((String) -> Void)? { get set }
    var onLocalCandidate: ((IceCandidate) -> Void)? { get set }
    var onConnected: (() -> Void)? { get set }
    var onDisconnected: (() -> Void)? { get set }
    var onFirstFrame: (() -> Void)? { get set }
    var onFailure: ((String) -> Void)? { get set }
    var onAudioProblem: ((String) -> Void)? { get set }
    var onWarning: ((String) -> Void)? { get set }
    var onRecordingFailed: ((String) -> Void)? { get set }
    /// The visitor's snapshot is on disk (its path).
    var onSnapshot: ((String) -> Void)? { get set }
    /// Which element decodes the door's video, or took over from a failed one (`failed`, `reason`).
    var onDecoder: ((_ element: String, _ hardware: Bool, _ failed: String?, _ reason: String?) -> Void)? { get set }

    var framesRendered: Int { get }
    var speakerPeakWhileEnabled: Double { get }
    var speakerPeakWhileGated: Double { get }
    var recordingPath: String? { get }
    var recordingError: String? { get }
    var isMicrophoneMuted: Bool { get }
    /// The `measurements` event's figures (nil without `--measure`).
    var measurementFigures: [String: JSONValue]? { get }

    func addRemoteCandidate(_ candidate: IceCandidate)
    func setAudioEnabled(_ enabled: Bool)
    func setMicrophoneMuted(_ muted: Bool)
    /// The loudest door and resident levels since the last call (dBFS RMS).
    func takeLevels() -> (door: Double, resident: Double)
    /// Stops; `done` runs once a recording is finalised (or at once).
    func finish(timeout: Double, _ done: @escaping () -> Void)
}

/// Builds the media of a call answering `offer`.
public typealias CallMediaFactory = (_ callId: String, _ offer: String, _ configuration: MediaConfiguration,
                                     _ audioEnabled: Bool, _ speaker: SpeakerOutput?) throws -> any CallMedia
