/// The short sounds of the wall display, played through the process's one
/// speaker (`SpeakerOutput.play`): the display asks for them by these names
/// (`DisplayMachine.Sound` is this type), the speaker plays their tones.
public enum SpeakerSound: String, CaseIterable, Sendable {
    /// Rising three-tone: the door was opened.
    case doorOpened = "door-opened"
    /// Falling tone: a ring was rejected or a call hung up.
    case ended
    /// A short click: a button was touched.
    case click

    /// One tone of a sound.
    public struct Tone: Equatable, Sendable {
        public var frequency: Double
        public var milliseconds: Int
        public var volume: Double
    }

    /// The tones, played one after the other.
    public var tones: [Tone] {
        switch self {
        case .doorOpened:
            return [Tone(frequency: 660, milliseconds: 110, volume: 0.3),
                    Tone(frequency: 880, milliseconds: 110, volume: 0.3),
                    Tone(frequency: 1320, milliseconds: 160, volume: 0.3)]
        case .ended:
            return [Tone(frequency: 880, milliseconds: 150, volume: 0.3),
                    Tone(frequency: 587, milliseconds: 150, volume: 0.3),
                    Tone(frequency: 440, milliseconds: 220, volume: 0.3)]
        case .click:
            return [Tone(frequency: 2000, milliseconds: 10, volume: 0.25)]
        }
    }

    /// The whole sound's length in milliseconds.
    public var milliseconds: Int { tones.reduce(0) { $0 + $1.milliseconds } }
}
