/// Where the door's media enters the call's pipeline, and where our
/// microphone goes: decided from the offer and the description, wired in
/// `AnswerSession` (`prepareInputs`, `releaseMicrophone`).
enum InputRoute: Equatable {
    /// Into the description's `video-in` / `audio-in`.
    case input
    /// To a discarding sink: the door sends it, but the description does not
    /// take it or this machine cannot decode it.
    case discard
    /// Nowhere: the door does not offer it.
    case none

    init(hasInput: Bool, decodable: Bool, offered: Bool) {
        if decodable, hasInput {
            self = .input
        } else {
            self = offered ? .discard : .none
        }
    }
}

/// Where the microphone's encoded audio (`audio-out`) goes once the door's
/// offer is applied.
enum MicrophoneRoute: Equatable {
    /// To webrtcbin's sink pad of the audio m-line: the answer sends audio.
    case door(mline: Int)
    /// To a discarding sink; `noSendCodec`: the door takes audio but none we
    /// can encode (Opus, PCMU, PCMA), which is worth a warning.
    case discard(noSendCodec: Bool)

    init(audioLine: Int?, decodable: Bool, canEncode: Bool) {
        if decodable, let audioLine, canEncode {
            self = .door(mline: audioLine)
        } else {
            self = .discard(noSendCodec: decodable && audioLine != nil)
        }
    }
}
