import C1nkGLib
import CGStreamer
import Synchronization

/// One thing the speaker plays: a small bin inside the speaker's pipeline
/// (a ringtone, a UI sound, or the `proxysrc` end of a call's audio), linked
/// to a pad of the mixer. Removed with `remove()`, on the main context.
final class SpeakerInput {
    let name: String
    private weak var owner: SpeakerOutput?
    private let clock: any TimerClock
    private var bin: Bin?
    private var mixerPad: Pad?

    init(name: String, bin: Bin, mixerPad: Pad, clock: any TimerClock, owner: SpeakerOutput) {
        self.name = name
        self.bin = bin
        self.mixerPad = mixerPad
        self.clock = clock
        self.owner = owner
    }

    /// The input's bin, until it is removed.
    var element: Bin? { bin }

    /// The repeating `realign` timer (main context).
    private var realignment: (any ScheduledTimer)?
    /// Whether a realignment probe waits for the next buffer (any thread).
    private let realignPending = PendingFlag()
    private final class PendingFlag: Sendable {
        let value = Atomic<Bool>(false)
    }

    /// Every `seconds` once the input plays, its next buffer is marked
    /// RESYNC: the mixer places it by its timestamp again and goes on from
    /// there. The mixer places an input's buffers one after another from
    /// where it put the first, so a call whose first buffers came late (the
    /// connection's start-up) would keep that delay to its end; realigned
    /// once, benchmark calls still came to play 20–40 ms later than their
    /// timestamps now and then, and realigned every 2 s they did not
    /// (docs/benchmarks.md). The mixer drops what is late, once; when
    /// nothing is, nothing changes. The call's jitterbuffer settles its
    /// timing within its first 2 s (its clock-skew estimate).
    func realign(every seconds: Double) {
        bin?.staticPad("src")?.onFirstBuffer { [weak self] in
            guard let self, self.bin != nil else { return }
            self.realignment = self.clock.schedule(after: seconds, repeats: true) { [weak self] in self?.markNextBuffer() }
        }
    }

    /// Main context: the next buffer leaving the input carries RESYNC.
    private func markNextBuffer() {
        guard let bin, !realignPending.value.exchange(true, ordering: .relaxed),
              let source = bin.staticPad("src") else { return }
        let pending = realignPending
        source.addProbe(GST_PAD_PROBE_TYPE_BUFFER) { info in
            if let buffer = c1nk_probe_writable_buffer(info) {
                buffer.pointee.mini_object.flags |= GST_BUFFER_FLAG_RESYNC.rawValue
            }
            pending.value.store(false, ordering: .relaxed)
            return GST_PAD_PROBE_REMOVE
        }
    }

    /// Stops the bin, gives the mixer pad back and takes the bin out of the
    /// speaker's pipeline. Safe to call twice.
    func remove() {
        guard let bin else { return }
        self.bin = nil
        realignment?.cancel()
        realignment = nil
        bin.setState(GST_STATE_NULL)
        if let mixerPad, let mixer = mixerPad.parent {
            if let source = bin.staticPad("src") { source.unlink(mixerPad) }
            mixer.releaseRequestPad(mixerPad)
        }
        mixerPad = nil
        bin.parent?.asBin?.remove(bin)
        owner?.inputRemoved(self)
    }

    deinit { remove() }
}
