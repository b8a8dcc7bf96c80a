@testable import C1nkAnswerer
@testable import C1nkProtocol

/// The media seam of the answerer, played by a test: it makes no media and
/// pretends none. The test fires what webrtcbin would report (`answer`,
/// `connect`, `firstFrame`, …) and reads what the answerer asked of the media.
final class ScriptedCallMedia: CallMedia {
    let callId: String
    let offer: String
    private(set) var audioEnabled: Bool
    private(set) var remoteCandidates: [IceCandidate] = []
    private(set) var finished = false
    var isMicrophoneMuted = false

    var onAnswer: ((String) -> Void)?
    var onLocalCandidate: ((IceCandidate) -> Void)?
    var onConnected: (() -> Void)?
    var onDisconnected: (() -> Void)?
    var onFirstFrame: (() -> Void)?
    var onFailure: ((String) -> Void)?
    var onAudioProblem: ((String) -> Void)?
    var onWarning: ((String) -> Void)?
    var onRecordingFailed: ((String) -> Void)?
    var onSnapshot: ((String) -> Void)?
    var onDecoder: ((String, Bool, String?, String?) -> Void)?

    var framesRendered = 0
    var speakerPeakWhileEnabled = -Double.infinity
    var speakerPeakWhileGated = -Double.infinity
    var recordingPath: String?
    var recordingError: String?
    var measurementFigures: [String: JSONValue]?

    init(callId: String, offer: String, audioEnabled: Bool) {
        self.callId = callId
        self.offer = offer
        self.audioEnabled = audioEnabled
    }

    func addRemoteCandidate(_ candidate: IceCandidate) { remoteCandidates.append(candidate) }
    func setAudioEnabled(_ enabled: Bool) { audioEnabled = enabled }
    func setMicrophoneMuted(_ muted: Bool) { isMicrophoneMuted = muted }
    func takeLevels() -> (door: Double, resident: Double) { (-100, -100) }
    func finish(timeout: Double, _ done: @escaping () -> Void) {
        finished = true
        done()
    }

    // The test's side: what webrtcbin would report.
    func answer(_ sdp: String = "v=0 answer") { onAnswer?(sdp) }
    func connect() { onConnected?() }
    func firstFrame() { onFirstFrame?() }

    /// Makes one `ScriptedCallMedia` per offer and keeps them, newest last.
    final class Factory {
        private(set) var made: [ScriptedCallMedia] = []
        var latest: ScriptedCallMedia? { made.last }
        /// Set to make the next media fail to build.
        var failure: String?

        var make: CallMediaFactory {
            { [unowned self] callId, offer, _, audioEnabled, _ in
                if let failure { throw MediaBuildError(description: failure) }
                let media = ScriptedCallMedia(callId: callId, offer: offer, audioEnabled: audioEnabled)
                self.made.append(media)
                return media
            }
        }
    }

    struct MediaBuildError: Error, CustomStringConvertible { let description: String }
}
