import C1nkCall
import C1nkGLib
import C1nkMedia

/// The call's media session: built for each offer, its callbacks turned
/// into the machine's events, and finished (a recording finalised) when the
/// machine stops it.
extension Answerer {
    func startMedia(callId: String, offer: String, audioEnabled: Bool) {
        stopMedia()
        var media = options.media
        if media.recording != nil, let refusal = options.beforeRecording?() {
            events.emit(.error(callId: callId, message: refusal))
            media.recording = .discard
        }
        do {
            let session = try makeMedia(callId, offer, media, audioEnabled, speaker)
            session.setMicrophoneMuted(microphoneMuted)
            session.onAudioProblem = { [weak self] text in self?.events.emit(.error(callId: callId, message: text)) }
            session.onAnswer = { [weak self, weak session] sdp in
                guard let self else { return }
                if let session, let path = session.recordingPath, self.recordingAnnounced.insert(path).inserted {
                    self.events.emit(.recording(callId: callId, path: path))
                }
                self.handle(.answerCreated(callId: callId, sdp: sdp))
            }
            session.onLocalCandidate = { [weak self] candidate in self?.handle(.localCandidate(callId: callId, candidate: candidate)) }
            session.onConnected = { [weak self] in self?.handle(.mediaConnected(callId: callId)) }
            session.onDisconnected = { [weak self] in self?.handle(.mediaDisconnected(callId: callId)) }
            session.onFirstFrame = { [weak self] in self?.handle(.firstFrame(callId: callId)) }
            session.onFailure = { [weak self] reason in self?.handle(.mediaFailed(callId: callId, reason: reason)) }
            session.onWarning = { [weak self] text in self?.events.emit(.error(callId: callId, message: text)) }
            session.onSnapshot = { [weak self] path in self?.events.emit(.snapshot(callId: callId, path: path)) }
            session.onDecoder = { [weak self] element, hardware, failed, reason in
                self?.events.emit(.decoder(callId: callId, element: element, hardware: hardware, failed: failed, reason: reason))
            }
            session.onRecordingFailed = { [weak self, weak session] reason in
                guard let self, let path = session?.recordingPath else { return }
                // The recording ends here; the call goes on.
                self.recordingAnnounced.remove(path)
                self.events.emit(.recorded(callId: callId, path: path, error: reason))
            }
            self.session = session
        } catch {
            log.error("call \(callId): \(error)")
            handle(.mediaFailed(callId: callId, reason: "\(error)"))
        }
    }

    /// Ends the current media session; a recording is finalised in the
    /// background and reported with a `recorded` event.
    func stopMedia() {
        guard let session else { return }
        if lastCall.callId == session.callId {
            lastCall.framesRendered += session.framesRendered
            lastCall.speakerPeakWhileGated = max(lastCall.speakerPeakWhileGated, session.speakerPeakWhileGated)
            lastCall.speakerPeakWhileEnabled = max(lastCall.speakerPeakWhileEnabled, session.speakerPeakWhileEnabled)
        }
        self.session = nil
        if let figures = session.measurementFigures {
            events.emit(.measurements(callId: session.callId, figures: figures))
        }
        let key = ObjectIdentifier(session)
        finishing[key] = session
        session.finish(timeout: 3) { [weak self, weak session] in
            guard let self else { return }
            self.finishing[key] = nil
            self.heapTrim.schedule()
            if let session, let path = session.recordingPath, session.recordingError == nil {
                self.recordingAnnounced.remove(path)
                self.events.emit(.recorded(callId: session.callId, path: path))
            }
        }
    }
}
