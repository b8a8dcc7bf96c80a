import C1nkMedia
import C1nkProtocol
import C1nkViewers

/// The webrtcbin session is the answerer's media.
extension AnswerSession: CallMedia {
    public var measurementFigures: [String: JSONValue]? {
        measurements.flatMap { JSONValue(any: $0.fields)?.objectValue }
    }

    /// The answerer's default factory: the call's media, and the visitor's
    /// snapshot taken from it (`VisitorSnapshot`).
    /// Called on the main context only (a factory is not Sendable).
    nonisolated(unsafe) public static let factory: CallMediaFactory = { callId, offer, configuration, audioEnabled, speaker in
        let session = try AnswerSession(callId: callId, offer: offer, configuration: configuration, audioEnabled: audioEnabled,
                                        speaker: speaker)
        VisitorSnapshot.attach(to: session, target: configuration.snapshot)
        return session
    }
}
