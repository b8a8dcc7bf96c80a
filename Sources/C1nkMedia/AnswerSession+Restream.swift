import C1nkGLib

/// The door's media as it enters the call, RTP before any depayloader, for a
/// restream (`C1nkRTSP`): the input pads a medium reaches (nil when the
/// description does not take it, or it is discarded) and its codec.
package struct ReceivedStreams {
    package var video: Pad?
    package var videoCodec: String?
    package var audio: Pad?
    package var audioCodec: String?
}

extension AnswerSession {
    /// Where the door's video and audio enter the call (`video-in`, `audio-in`).
    package var receivedStreams: ReceivedStreams {
        func input(_ media: String) -> Pad? {
            guard let pad = inputs.pad(for: media), pad.parent?.name == "\(media)-in" else { return nil }
            return pad
        }
        let audio = audioDecodable ? input("audio") : nil
        return ReceivedStreams(video: input("video"), videoCodec: offer.videoCodec, audio: audio, audioCodec: offer.audioCodec)
    }
}
