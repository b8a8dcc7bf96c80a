import C1nkGLib
import C1nkMedia
import C1nkPipeline

/// A call between the simulated door's media and an answering session in one
/// process, with no signaling between them (offer, answer and candidates are
/// handed across directly): the echo loop and the audio benchmark measure the
/// media alone this way.
public final class DirectCall {
    public private(set) var session: AnswerSession?
    /// What went wrong on either side since the call started, if anything.
    public private(set) var failure: String?
    private let door: DoorMediaSession
    private var connected = false

    /// Starts the call and waits up to `timeout` seconds for it to connect.
    /// `prepare` sees the answering session before it answers (to attach
    /// probes). The audio gates stay closed until `session.setAudioEnabled`.
    public init(door: DoorMediaSession, callId: String, configuration: MediaConfiguration, speaker: SpeakerOutput,
                timeout: Double = 15, prepare: @escaping (AnswerSession) -> Void = { _ in }) throws {
        self.door = door
        door.onFailure = { [weak self] in self?.failure = "door: \($0)" }
        door.onOffer = { [weak self, weak door] offer in
            guard let self, let door else { return }
            do {
                let answer = try AnswerSession(callId: callId, offer: offer, configuration: configuration,
                                               audioEnabled: false, speaker: speaker)
                prepare(answer)
                answer.onAnswer = { [weak door] in door?.applyAnswer($0) }
                answer.onLocalCandidate = { [weak door] in door?.addRemoteCandidate($0) }
                answer.onConnected = { [weak self] in self?.connected = true }
                answer.onFailure = { [weak self] in self?.failure = $0 }
                self.session = answer
            } catch {
                self.failure = "\(error)"
            }
        }
        door.onLocalCandidate = { [weak self] in self?.session?.addRemoteCandidate($0) }
        _ = MainContext.run(timeout: timeout) { self.connected || self.failure != nil }
        if let failure {
            stop()
            throw MediaError.pipeline("the call failed: \(failure)")
        }
        guard connected, session != nil else {
            stop()
            throw MediaError.pipeline("the call did not connect in \(Int(timeout)) s")
        }
    }

    /// Throws if either side failed since the call connected.
    public func check() throws {
        if let failure { throw MediaError.pipeline("the call failed: \(failure)") }
    }

    /// Ends both sides.
    public func stop() {
        session?.stop()
        door.stop()
    }
}
