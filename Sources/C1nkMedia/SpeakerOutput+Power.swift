import C1nkGLib
import C1nkPipeline
import C1nkProbes
import C1nkSpeaker

/// Performing `SpeakerPowerMachine`'s actions on the graph: the machine
/// decides when the speaker runs, sleeps and starts again; this does it and
/// tells the machine how a start went.
extension SpeakerOutput {
    func handle(_ event: SpeakerPowerMachine.Event) {
        for action in power.handle(event) { perform(action) }
    }

    /// A failure of the sink or the mixer (at a start or later), told the user once.
    func fail(_ reason: String) {
        handle(.failed(problem: "the speaker '\(sinkDescription)' cannot play: \(reason). "
                       + SinkCheck.alternatives("audio", besides: sinkDescription)))
    }

    private func perform(_ action: SpeakerPowerMachine.Action) {
        switch action {
        case .start:
            run(failure: "it failed to start")
        case .wake:
            if run(failure: "it failed to start again") { log.debug("speaker: awake") }
        case .sleep:
            // The silent source goes first: nothing is left to run.
            keepOpen?.remove()
            keepOpen = nil
            graph.sleep()
            log.debug("speaker: asleep (nothing to play)")
        case .stop:
            graph.stop()
        case .report(let problem):
            log.warning(problem)
            onProblem?(problem)
        case .startIdleTimer(let seconds):
            idleTimer = clock.schedule(after: seconds) { [weak self] in
                self?.idleTimer = nil
                self?.handle(.idleTimerFired)
            }
        case .cancelIdleTimer:
            idleTimer?.cancel()
            idleTimer = nil
        }
    }

    /// Runs the graph and, once it runs, adds the silent source; tells the
    /// machine how it went.
    @discardableResult
    private func run(failure: String) -> Bool {
        guard graph.run() else {
            fail(graph.takeError() ?? failure)
            return false
        }
        // Added once running: a live source started with the pipeline
        // would count its time from zero and push a burst to catch up.
        attachKeepOpen()
        handle(.started)
        return true
    }

    private func attachKeepOpen() {
        guard keepOpen == nil else { return }
        keepOpen = try? attach("\(SpeakerGraph.keepOpenDescription) ! \(SpeakerGraph.format) ! identity name=\(PipelineBin.outputName)",
                               name: "keep-open", offset: nil, waking: false)
    }
}
