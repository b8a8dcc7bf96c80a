import C1nkAnswerer
import C1nkCall
import C1nkGLib
import C1nkMedia
import C1nkSIP
import C1nkViewers

/// The call's voice to and from the phone that took it over SIP: a
/// `CallTap` copies the door's audio RTP into the phone leg (decoded and
/// re-encoded there as G.711), and the phone's voice goes into the call's
/// talk input (`WebTalk`), through the same echo canceller, gate and mute as
/// the wall's microphone. The door's voice reaches the phone once the call
/// is accepted (silence before, as everywhere). Main context.
final class SIPMedia {
    /// The door's audio when its caps are not known yet (the phone answered before its first packet):
    /// a WebRTC door sends Opus.
    static let assumedDoorAudio = "application/x-rtp,media=audio,clock-rate=48000,encoding-name=OPUS,payload=111"
    private static let tapName = "sip-phone"
    private let answerer: Answerer
    private var tap: CallTap?
    private let talk = TalkRoute()

    init(answerer: Answerer) { self.answerer = answerer }

    /// Wires `bridge`'s winner media to the call in progress.
    func attach(to bridge: SIPBridge) {
        bridge.prepareMedia = { [weak self] media in self?.prepare(media) }
        bridge.onMediaStarted = { [weak self] media in self?.started(media) }
        bridge.onMediaEnded = { [weak self] in self?.end() }
    }

    /// The answerer's events.
    func event(_ event: CallEvent) {
        switch event {
        case .accepted(let callId) where tap?.callId == callId:
            tap?.setAudioOpen(true)
        case .ended:
            end()
        default:
            break
        }
    }

    private func prepare(_ media: PhoneLegMedia) {
        end()
        guard let session = answerer.currentSession else { return }
        let tap = CallTap(session: session)
        self.tap = tap
        media.hearing = .door(caps: tap.caps(for: "audio") ?? Self.assumedDoorAudio)
        talk.set(tap.talkInput)
        let route = talk
        media.onVoice = { route.push($0) }
    }

    private func started(_ media: PhoneLegMedia) {
        guard let tap, let source = media.doorVoiceSource else { return }
        tap.add(Self.tapName, media: "audio", source: source)
    }

    private func end() {
        talk.set(nil)
        tap?.stop()
        tap = nil
    }
}
