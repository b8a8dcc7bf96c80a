import C1nkAnswerer
import C1nkCall
import C1nkGLib
import C1nkMedia
import C1nkSIP
import C1nkViewers

/// The call's voice to and from the phone that took it over SIP, and the
/// door's video to a video phone: a `CallTap` copies the door's RTP into the phone leg (decoded and
/// re-encoded there as G.711), and the phone's voice goes into the call's
/// talk input (`WebTalk`), through the same echo canceller, gate and mute as
/// the wall's microphone. The door's voice reaches the phone once the call
/// is accepted (silence before, as everywhere). Main context.
final class SIPMedia {
    /// The door's audio when its caps are not known yet (a phone that answers at once does so before
    /// the door's media connect): a WebRTC door sends Opus. The depayloader's caps need a dynamic
    /// payload type, any will do: it does not compare it with the packets'.
    static let assumedDoorAudio = "application/x-rtp,media=audio,clock-rate=48000,encoding-name=OPUS,payload=111"
    private static let tapName = "sip-phone"
    private let answerer: Answerer
    private var tap: CallTap?
    private let talk = TalkRoute()
    /// The phone leg in the call, until it or the call ends.
    private var leg: PhoneLegMedia?

    init(answerer: Answerer) { self.answerer = answerer }

    /// Wires `bridge`'s winner media to the call in progress.
    func attach(to bridge: SIPBridge) {
        bridge.prepareMedia = { [weak self] media in self?.prepare(media) }
        bridge.onMediaStarted = { [weak self] media in
            self?.leg = media
            self?.connect()
        }
        bridge.onMediaEnded = { [weak self] in self?.end() }
    }

    /// The answerer's events: a phone that answered before the call's media existed is
    /// connected once they do; the door's voice opens at accept.
    func event(_ event: CallEvent) {
        switch event {
        case .mediaConnected, .firstFrame:
            connect()
        case .accepted:
            connect()
            tap?.setAudioOpen(true)
        case .ended:
            end()
        default:
            break
        }
    }

    private func prepare(_ media: PhoneLegMedia) {
        end()
        let inputs = answerer.currentSession?.inputs
        media.hearing = .door(caps: inputs?.pad(for: "audio")?.currentCaps?.description ?? Self.assumedDoorAudio)
        media.seeing = inputs?.pad(for: "video")?.currentCaps?.description
        let route = talk
        media.onVoice = { route.push($0) }
        media.measuresHeard = false
    }

    /// The tap on the call's media, once both the leg and the call's session exist.
    private func connect() {
        guard tap == nil, let leg, let source = leg.doorVoiceSource, let session = answerer.currentSession else { return }
        let tap = CallTap(session: session)
        self.tap = tap
        tap.add(Self.tapName, media: "audio", source: source)
        talk.set(tap.talkInput)
        if let video = leg.doorVideoSource, let frames = leg.doorVideoDepayloader?.staticPad("src") {
            // The phone starts mid-stream: nothing until the door's keyframe, asked for now and whenever
            // the phone asks (paced with the browsers').
            ViewerKeyframes().attach(to: frames) { [weak tap] in tap?.requestKeyframe() }
            tap.add(Self.tapName, media: "video", source: video)
            tap.requestKeyframe()
        }
    }

    private func end() {
        talk.set(nil)
        tap?.stop()
        tap = nil
        leg = nil
    }
}
