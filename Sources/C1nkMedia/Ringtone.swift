/// The ring the user hears before picking up: a short beep every second,
/// played through the process's one speaker (`SpeakerOutput`), so ringing
/// and the call's audio never hold the device at the same time.
public final class Ringtone {
    /// The default sound: 880 Hz ticks, one per second.
    public static let defaultDescription = "audiotestsrc is-live=true wave=ticks tick-interval=1000000000 sine-periods-per-tick=350 freq=880 volume=0.4"

    private var input: SpeakerInput?

    /// Starts ringing: `source` (a live audio source description) into the speaker.
    public init(source: String, speaker: SpeakerOutput) throws {
        input = try speaker.startSource(source, name: "ringtone")
    }

    public func stop() {
        input?.remove()
        input = nil
    }

    deinit { stop() }
}
