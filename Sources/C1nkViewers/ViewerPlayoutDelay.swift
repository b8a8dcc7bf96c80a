import C1nkGLib
import CPlayoutDelay
import Synchronization

/// The playout delay a viewer's video asks of the browser (libwebrtc's
/// playout-delay header extension, on every packet: `CPlayoutDelay`),
/// chosen from what the browser's RTCP says of its link.
/// - Clean: minimum 0. Each frame is shown as soon as it is decoded, and
///   the browser's jitter buffer may still grow to the maximum on jitter.
/// - Lossy (its receiver reports show packets lost, not merely late:
///   `LossWindow`): minimum 150 ms. A frame whose last packet is lost is
///   completed only when the next frame's first packet shows the gap and
///   the retransmission comes back, a frame's time later; a retransmission
///   lost too is asked again after libwebrtc's default round trip, 100 ms
///   (a browser that only receives has no measure of its own). Shown at
///   once, such a frame comes out with the next and one of them is never
///   shown; held 150 ms, each is shown in its turn. The browser moves its
///   delay at most 100 ms a second, so the change shows as no jump.
/// Back to clean after `hold` seconds without loss. The browser's RTCP
/// reaches it on a streaming thread (`lossSeen`, which raises it at once);
/// the main context lowers it (`relax`).
final class ViewerPlayoutDelay: Sendable {
    struct Delay: Equatable {
        var minimum: Int
        var maximum: Int
    }

    static let clean = Delay(minimum: 0, maximum: BrowserViewer.playoutDelayMaximumMilliseconds)
    static let lossy = Delay(minimum: 150, maximum: 300)
    static let hold = 10.0

    private nonisolated(unsafe) let handle: OpaquePointer
    /// When loss was last seen (monotonic µs).
    private let lastLoss = Atomic<Int>(0)
    private let isLossy = Atomic<Bool>(false)

    private let onChange: @Sendable (Delay) -> Void

    /// Marks what `pad` (the video payloader's source) sends; nil for an id
    /// the one-byte form cannot carry. `onChange` runs on the main context
    /// after each change (the viewer's log).
    init?(marking pad: Pad, extensionId: Int, onChange: @escaping @Sendable (Delay) -> Void = { _ in }) {
        self.onChange = onChange
        guard (1...14).contains(extensionId),
              let handle = c1nk_playout_delay_attach(pad.pointer, guint(extensionId), guint(Self.clean.minimum), guint(Self.clean.maximum))
        else { return nil }
        self.handle = handle
    }

    deinit { c1nk_playout_delay_unref(handle) }

    /// What the packets say now.
    var current: Delay { isLossy.load(ordering: .relaxed) ? Self.lossy : Self.clean }

    /// The browser reported loss, at `now` (µs, monotonic). Streaming thread.
    func lossSeen(now: Int) {
        lastLoss.store(now, ordering: .relaxed)
        if !isLossy.exchange(true, ordering: .relaxed) { apply(Self.lossy) }
    }

    /// The browser's link came back after an outage: clean at once. Held
    /// frames then cost the picture's return: after seconds without packets
    /// Chromium's clock for the door's timestamps starts again, and with a
    /// minimum its first frames waited 1.6 s to be shown, against 15–40 ms
    /// with none. Streaming thread.
    func outageEnded() {
        lastLoss.store(0, ordering: .relaxed)
        if isLossy.exchange(false, ordering: .relaxed) { apply(Self.clean) }
    }

    /// Back to clean once no loss was seen for `hold` seconds. Main context, about once a second.
    func relax(now: Int) {
        let held = Int(Self.hold * 1_000_000)
        guard isLossy.load(ordering: .relaxed), now - lastLoss.load(ordering: .relaxed) > held else { return }
        guard isLossy.exchange(false, ordering: .relaxed) else { return }
        apply(Self.clean)
        // Loss seen while this lowered it raises it again.
        let last = lastLoss.load(ordering: .relaxed)
        if now - last <= held { lossSeen(now: last) }
    }

    private func apply(_ delay: Delay) {
        c1nk_playout_delay_set(handle, guint(delay.minimum), guint(delay.maximum))
        let onChange = self.onChange
        MainContext.post { onChange(delay) }
    }
}
