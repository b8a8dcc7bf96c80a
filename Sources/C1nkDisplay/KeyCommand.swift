/// The display's keys: Enter or `a` accept, `r` or Esc reject, `o` open,
/// `h` hang up, `m` mute (again: unmute). Key names as GstNavigation and the
/// evdev reader give them.
public enum KeyCommand {
    /// The answerer command of a key (`accept`, `reject`, `open`, `hangup`,
    /// `mute`, `unmute`): keys answer even with no screens to show.
    public static func command(forKey key: String, muted: Bool) -> String? {
        control(forKey: key, muted: muted)?.rawValue
    }

    static func control(forKey key: String, muted: Bool) -> ScreenLayout.Control? {
        switch key.lowercased() {
        case "return", "enter", "kp_enter", "a": return .accept
        case "escape", "esc", "r": return .reject
        case "o": return .open
        case "h": return .hangup
        case "m": return muted ? .unmute : .mute
        default: return nil
        }
    }
}
