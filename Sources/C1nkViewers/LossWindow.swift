/// Whether a browser's receiver reports say packets are being lost, not
/// merely late. A report's cumulative loss is the packets expected (up to
/// the highest received) less those received, so a packet overtaken by
/// another counts as lost until it comes, and the count rises and falls
/// with the packets in flight; a report's fraction lost is then above 0 in
/// one interval of two. Lost packets add up (a browser counts a packet lost
/// though its retransmission came). So: loss is the count having grown by
/// `threshold` or more within `seconds`, on any one of our streams (3 % of
/// the door's 100–150 video packets a second in 3 s; 10 % in one), in
/// reports of a jitter at most `maximumJitter`.
/// A browser silent for `outageSilence` was cut off (a drop-out, a phone
/// between access points): what its first report after says it lost is the
/// outage, not loss, and the window starts again.
struct LossWindow {
    enum Reading: Int, Comparable {
        case steady, loss, outage
        static func < (a: Reading, b: Reading) -> Bool { a.rawValue < b.rawValue }
    }

    /// One report block: its stream, the packets lost so far and the
    /// interarrival jitter (in the stream's clock units).
    struct Report {
        var source: UInt32
        var cumulativeLost: Int
        var jitter = 0
    }

    var threshold = 10
    var seconds = 5.0
    /// Reports of a jitter above this are not read (10 ms of the video's
    /// 90 kHz clock; the audio's 48 kHz, 19 ms). libwebrtc takes a packet
    /// overtaken by others by more than its jitter allows for a
    /// retransmission and counts it received nowhere, so on a link that
    /// reorders its count of lost packets grows though none was lost: 30 ±
    /// 20 ms of jitter per packet added 10 in 5 s (its video's jitter
    /// reported 11–19 ms, against 1–4 ms at 3 % or 10 % loss). There the
    /// browser's own jitter buffer, which may grow to 100 ms, holds its frames.
    var maximumJitter = 900
    /// Longer than a browser's reports are apart (Chromium: one a second at most).
    var outageSilence = 2.0
    /// Streams followed at most (report blocks name any SSRC a browser likes).
    var maximumStreams = 8
    /// Per stream, its recent reports (time, cumulative lost), oldest first.
    private var reports: [UInt32: [(time: Double, lost: Int)]] = [:]

    init() {}

    /// After an outage: what was lost meanwhile is forgotten, the window
    /// starts again from these report blocks.
    mutating func restart(_ blocks: [Report], now: Double) {
        reports = [:]
        for block in blocks.prefix(maximumStreams) { reports[block.source] = [(now, block.cumulativeLost)] }
    }

    /// Takes a packet's report blocks at `now` (seconds): loss when one of them shows it.
    mutating func add(_ blocks: [Report], now: Double) -> Reading {
        var loss = false
        for block in blocks where block.jitter <= maximumJitter && (reports[block.source] != nil || reports.count < maximumStreams) {
            var recent = reports[block.source, default: []].filter { now - $0.time <= seconds }.suffix(15)
            recent.append((now, block.cumulativeLost))
            if let least = recent.map(\.lost).min(), block.cumulativeLost - least >= threshold { loss = true }
            reports[block.source] = Array(recent)
        }
        return loss ? .loss : .steady
    }
}
