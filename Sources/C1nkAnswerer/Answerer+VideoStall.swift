import C1nkCall

/// The picture watched while a call shows video: a frozen one is reported
/// (`video-stalled`, a warning) and so is its return (`video-resumed`), and
/// the call goes on either way. The checks run on the answerer's clock.
extension Answerer {
    /// Starts watching at the call's first frame (once per call).
    func watchVideo(callId: String) {
        guard videoStallTimer == nil else { return }
        videoStall = VideoStallWatch()
        videoStallTimer = clock.schedule(after: VideoStallWatch.checkInterval, repeats: true) { [weak self] in
            self?.checkVideo(callId: callId)
        }
    }

    func stopWatchingVideo() {
        videoStallTimer = nil
    }

    private func checkVideo(callId: String) {
        guard machine.call?.callId == callId else { return stopWatchingVideo() }
        // This call's earlier sessions (a re-offer) and the present one.
        let current = session.flatMap { $0.callId == callId ? $0.framesRendered : nil } ?? 0
        let frames = (lastCall.callId == callId ? lastCall.framesRendered : 0) + current
        switch videoStall.check(frames: frames, at: clock.now) {
        case .stalled:
            log.warning("call \(callId): the door's video has stopped (no frame for \(VideoStallWatch.threshold) s); the call goes on")
            events.emit(.videoStalled(callId: callId))
        case .resumed(let stalledMs):
            log.info("call \(callId): the door's video is back after \(stalledMs) ms")
            events.emit(.videoResumed(callId: callId, stalledMs: stalledMs))
        case nil:
            break
        }
    }
}
