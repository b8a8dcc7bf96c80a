import C1nkCall
import C1nkDoor
import C1nkProbes
import C1nkProtocol

/// The frames the answerer showed in one call, frame by frame, from its
/// `measurements` event (`MeasurementProbes.Summary.frames`).
struct ShownFrames {
    var sequences: [Int] = []
    var shownAtMs: [Int] = []
    var agesMs: [Double] = []
    /// When the answerer took its figures (monotonic ms), 0 if it did not say.
    var measuredAtMs = 0

    init(_ figures: [String: JSONValue]) {
        let frames = figures["frames"]?.objectValue ?? [:]
        func ints(_ key: String) -> [Int] { frames[key]?.arrayValue?.compactMap(\.intValue) ?? [] }
        sequences = ints("sequence")
        shownAtMs = ints("shownAtMs")
        agesMs = frames["ageMs"]?.arrayValue?.compactMap(\.doubleValue) ?? []
        measuredAtMs = figures["measuredAtMs"]?.intValue ?? 0
    }

    init(sequences: [Int], agesMs: [Double]) {
        self.sequences = sequences
        self.agesMs = agesMs
    }

    /// Every `measurements` event of an events file, in order (one a call).
    static func all(inEventsFile path: String) -> [ShownFrames] {
        Events(path: path).records.compactMap { record in
            if case .measurements(_, let figures) = record.event { return ShownFrames(figures) } else { return nil }
        }
    }

    /// The ages of the frames whose sequence number is in `window`.
    func ages(in window: ClosedRange<Int>) -> [Double] {
        zip(sequences, agesMs).filter { window.contains($0.0) }.map(\.1)
    }

    func tally(_ window: ClosedRange<Int>, seconds: Double) -> FrameTally {
        FrameTally(window: window, seconds: seconds, shown: sequences)
    }
}

/// Which of the door's frames a call is counted against: from the first it
/// sent to the last it drew a second before the answerer took its figures
/// (a frame still on its way then is not counted against it).
enum FrameWindow {
    static let graceMicroseconds = 1_000_000

    /// The simulated door: its camera's stamps, frame 1 the first it sent.
    static func window(of stamped: StampedFrames, until measuredAtMs: Int) -> (ClosedRange<Int>, seconds: Double)? {
        let last = stamped.lastSequence(stampedBy: measuredAtMs * 1000 - graceMicroseconds)
        guard last >= 1, let first = stamped.time(of: 1), let end = stamped.time(of: last) else { return nil }
        // The span of the frames' times, each frame one interval long.
        let interval = last > 1 ? Double(end - first) / Double(last - 1) : 33_333
        return (1...last, Double(end - first) / 1_000_000 + interval / 1_000_000)
    }

    /// A browser door: its statistics once a second say what its canvas drew
    /// and how many it sent; frames drawn before the first was sent are not
    /// the call's. Its canvas draws at `framesPerSecond`.
    static func window(of stats: [BrowserDoor.Stats], until measuredAtMs: Int, framesPerSecond: Double = 30) -> (ClosedRange<Int>, seconds: Double)? {
        let cutoff = Double(measuredAtMs * 1000 - graceMicroseconds) / 1_000_000
        guard let first = stats.first(where: { ($0.framesSent ?? 0) > 0 }), let drawn = first.drawn, let sent = first.framesSent,
              let last = stats.last(where: { $0.time <= cutoff })?.drawn else { return nil }
        let unsentBeforeFirst = max(0, drawn - sent - (first.skipped ?? 0))
        guard last > unsentBeforeFirst else { return nil }
        let window = (unsentBeforeFirst + 1)...last
        return (window, Double(window.count) / framesPerSecond)
    }
}

extension CallFigures {
    /// Counts the call's frames against those the door drew.
    mutating func countDrawnFrames(door: BenchDoor, shown: ShownFrames) {
        let window = door.stamped.flatMap { FrameWindow.window(of: $0, until: shown.measuredAtMs) }
            ?? door.browserDoor.flatMap { FrameWindow.window(of: $0.stats, until: shown.measuredAtMs) }
        guard let (frames, seconds) = window else { return }
        drawnFrames = shown.tally(frames, seconds: seconds)
        drawnFrameAgesMs = shown.ages(in: frames)
    }
}
