import C1nkAnswerer
import C1nkMedia

extension RTSPRestream {
    /// The answerer's media factory, with each call's media mounted here as it is built.
    public func mediaFactory(_ factory: @escaping CallMediaFactory = AnswerSession.factory) -> CallMediaFactory {
        return { [weak self] callId, offer, configuration, audioEnabled, speaker in
            let media = try factory(callId, offer, configuration, audioEnabled, speaker)
            if let session = media as? AnswerSession { self?.callStarted(session) }
            return media
        }
    }
}
