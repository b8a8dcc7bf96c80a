import C1nkCall
import C1nkGLib
import C1nkProtocol

/// `--measure`: how late the main context runs a 10 ms timer from each ring
/// until 3 s after its call ended, so that what a call's end sets off (its
/// viewers and its recording torn down) counts too; reported as a
/// `main-loop` event. Off without `--measure`: the timer would wake the
/// process a hundred times a second.
extension Answerer {
    /// One call's watch: the lateness so far and, once it ended, the tail's timer.
    struct MainLoopWatch {
        let callId: String
        let lateness: MainLoopLateness
        var tail: (any ScheduledTimer)?
    }

    /// How long after the call's end the watch goes on.
    static let mainLoopTail = 3.0

    func watchMainLoop(_ event: CallEvent) {
        guard options.media.measure else { return }
        switch event {
        case .ringing(let callId, _):
            // A ring before the last one's tail ran out reports the last one now.
            reportMainLoop()
            mainLoopWatch = MainLoopWatch(callId: callId, lateness: MainLoopLateness(), tail: nil)
        case .ended(let callId, _, _, _, _) where mainLoopWatch?.callId == callId:
            mainLoopWatch?.tail = clock.schedule(after: Self.mainLoopTail, repeats: false) { [weak self] in self?.reportMainLoop() }
        default:
            break
        }
    }

    func reportMainLoop() {
        guard let watch = mainLoopWatch else { return }
        mainLoopWatch = nil
        watch.lateness.stop()
        let milliseconds = watch.lateness.samples.map { $0 * 1000 }
        let sorted = milliseconds.sorted()
        func percentile(_ fraction: Double) -> JSONValue {
            guard !sorted.isEmpty else { return .double(0) }
            return .double(Self.rounded(sorted[min(sorted.count - 1, Int((fraction * Double(sorted.count - 1)).rounded()))]))
        }
        events.emit(.mainLoop(callId: watch.callId, lateMs: [
            "count": .int(sorted.count), "p50": percentile(0.5), "p95": percentile(0.95), "p99": percentile(0.99),
            "max": .double(Self.rounded(sorted.last ?? 0)),
        ]))
    }

    private static func rounded(_ value: Double) -> Double { (value * 100).rounded() / 100 }
}
