/// Whether a call's picture has stopped, as a value: checked every
/// `checkInterval` with the frames rendered so far, it says when no frame
/// has come for `threshold` seconds (`video-stalled`) and when frames come
/// again (`video-resumed`, with how long the picture stood still). Times are
/// seconds of the answerer's clock, good to a check's interval.
public struct VideoStallWatch: Sendable {
    /// A picture this long without a new frame is frozen: a repair or a
    /// keyframe after a loss takes a few hundred milliseconds at most.
    public static let threshold = 1.0
    public static let checkInterval = 0.25

    public enum Change: Equatable, Sendable {
        case stalled
        case resumed(stalledMs: Int)
    }

    private var frames = 0
    private var lastFrameAt: Double?
    /// When the last frame before the stall was seen, while stalled.
    public private(set) var stalledSince: Double?

    public init() {}

    /// The frames rendered by `now` (a total that only moves on): the
    /// change to report, if any. Nothing is reported before the first frame.
    public mutating func check(frames count: Int, at now: Double) -> Change? {
        if count != frames {
            frames = count
            lastFrameAt = now
            guard let since = stalledSince else { return nil }
            stalledSince = nil
            return .resumed(stalledMs: Int(((now - since) * 1000).rounded()))
        }
        guard stalledSince == nil, let last = lastFrameAt, now - last >= Self.threshold else { return nil }
        stalledSince = last
        return .stalled
    }
}
