import C1nkCall
import C1nkGLib

/// The events the machine reports, before they are written: the call's
/// figures and scripting timers follow them, and the answerer adds its own
/// fields (the time since the ring, the frames rendered).
extension Answerer {
    func emitted(_ event: CallEvent) {
        let now = clock.now
        var event = event
        func sinceRing() -> Int? { lastCall.ringAt.map { Int((now - $0) * 1000) } }
        switch event {
        case let .ringing(callId, doorName):
            lastCall = CallFigures(callId: callId, ringAt: now)
            microphoneMuted = false
            log.info("ringing: \(doorName) (call \(callId))")
            if options.answerMode == .auto { answerAutomatically(callId) }
        case let .missed(callId, doorName, reason):
            // Another ring while busy or beyond capacity: the call in progress, its timers and counts stay as they are.
            log.info("missed a ring from \(doorName) (call \(callId)): \(reason)")
        case let .doorOpenFailed(callId, reason):
            log.warning("call \(callId): the door did not open (\(reason.rawValue))")
        case .mediaConnected(let callId, _):
            lastCall.mediaConnectedAt = now
            event = .mediaConnected(callId: callId, sinceRingMs: sinceRing())
        case .firstFrame(let callId, _):
            lastCall.firstFrameAt = now
            event = .firstFrame(callId: callId, sinceRingMs: sinceRing())
            watchVideo(callId: callId)
        case .doorOpened:
            lastCall.doorOpened = true
        case .accepted(let callId):
            levelsTimer = clock.schedule(after: options.levelsInterval, repeats: true) { [weak self] in
                self?.emitLevels(callId: callId)
            }
        case let .ended(callId, reason, doorName, serverReason, _):
            if lastCall.callId == callId {
                lastCall.endReason = reason.rawValue
                event = .ended(callId: callId, reason: reason, doorName: doorName, serverReason: serverReason,
                               frames: lastCall.framesRendered)
            }
            // Only this call's timers: nothing else may be running, but nothing else is ours to stop.
            callTimers[callId] = nil
            levelsTimer = nil
            stopWatchingVideo()
            endedCalls += 1
            log.info("call \(callId) ended: \(reason.rawValue)")
            if let limit = options.exitAfterCalls, endedCalls >= limit { isFinished = true }
        default:
            break
        }
        events.emit(event)
        watchMainLoop(event)
    }

    /// `--answer auto`: accept `answerDelay` seconds after the ring.
    private func answerAutomatically(_ callId: String) {
        callTimer(callId, after: options.answerDelay, .userAccept)
    }

    /// The `levels` event: the loudest door and resident levels of the last
    /// interval, dBFS RMS (-100 for silence or a closed gate).
    private func emitLevels(callId: String) {
        guard let session, session.callId == callId else { return }
        let levels = session.takeLevels()
        events.emit(.levels(callId: callId, door: LevelReport.decibels(levels.door),
                            resident: LevelReport.decibels(levels.resident), muted: session.isMicrophoneMuted))
    }
}

/// How a level is reported in the `levels` event.
enum LevelReport {
    /// dBFS to one decimal, no lower than -100; -100 for silence (not finite).
    static func decibels(_ value: Double) -> Double {
        value.isFinite ? max(-100, (value * 10).rounded() / 10) : -100
    }
}
