/// The display's keys (issue 10): Enter or `a` accept, `r` or Esc reject,
/// `o` open, `h` hang up, `m` mute (again: unmute). Key names as GstNavigation
/// and the evdev reader give them.
public enum KeyCommand {
    public static func control(forKey key: String, muted: Bool) -> ScreenLayout.Control? {
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
