import C1nkCall
import C1nkGLib
import C1nkMedia

/// The call state machine's answers, performed: what goes to the signaller,
/// the ringtone, the media session, and the timers on the answerer's clock.
extension Answerer {
    /// Performs what the machine answers; returns the refusals to tell the user.
    @discardableResult
    func handle(_ event: CallMachine.Event) -> [String] {
        var refusals: [String] = []
        for action in machine.handle(event) {
            if case .refuse(let text) = action { refusals.append(text) } else {
                perform(action)
                onAction?(action)
            }
        }
        releaseSlotIfIdle()
        return refusals
    }

    private func perform(_ action: CallMachine.Action) {
        switch action {
        case .emit(let event):
            emitted(event)
        case .signal(let intent):
            signaller.send(intent)
        case .startRingtone:
            guard let source = options.ringtone, let speaker else { return }
            do {
                ringtone = try Ringtone(source: source, speaker: speaker)
            } catch {
                log.warning("ringtone: \(error); ringing silently")
            }
        case .stopRingtone:
            ringtone?.stop()
            ringtone = nil
        case let .startMedia(callId, offer, audioEnabled):
            startMedia(callId: callId, offer: offer, audioEnabled: audioEnabled)
        case let .addRemoteCandidate(_, candidate):
            session?.addRemoteCandidate(candidate)
        case .stopMedia:
            stopMedia()
        case .enableAudio:
            session?.setAudioEnabled(true)
        case .setMicrophoneMuted(let muted):
            microphoneMuted = muted
            session?.setMicrophoneMuted(muted)
        case let .startTimer(timer, callId):
            // Replacing a running one releases, and so cancels, it.
            machineTimers[timer] = clock.schedule(after: options.seconds(for: timer)) { [weak self] in
                self?.handle(.timeout(timer, callId: callId))
            }
        case .cancelTimer(let timer):
            machineTimers[timer] = nil
        case .cancelTimers:
            machineTimers.removeAll()
        case .callAccepted(let callId):
            lastCall.acceptedAt = clock.now
            if let seconds = options.openDoorAfter { callTimer(callId, after: seconds, .userOpenDoor) }
            if let seconds = options.hangupAfter { callTimer(callId, after: seconds, .userHangup) }
        case .refuse(let text):
            log.warning(text)
        }
    }

    /// A scripting timer that acts only on the call it was started for.
    func callTimer(_ callId: String, after seconds: Double, _ event: CallMachine.Event) {
        callTimers[callId, default: []].append(clock.schedule(after: seconds) { [weak self] in
            guard let self, self.machine.call?.callId == callId else { return }
            for refusal in self.handle(event) { self.log.warning("call \(callId): \(refusal)") }
        })
    }
}
