import C1nkMedia
import C1nkProtocol

/// The webrtcbin session is the answerer's media.
extension AnswerSession: CallMedia {
    public var measurementFigures: [String: JSONValue]? {
        measurements.flatMap { JSONValue(any: $0.fields)?.objectValue }
    }

    /// The answerer's default factory.
    /// Called on the main context only (a factory is not Sendable).
    nonisolated(unsafe) public static let factory: CallMediaFactory = { callId, offer, configuration, audioEnabled, speaker in
        try AnswerSession(callId: callId, offer: offer, configuration: configuration, audioEnabled: audioEnabled,
                          speaker: speaker)
    }
}
