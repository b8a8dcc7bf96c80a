import C1nkGst

/// What a person at the terminal reads about the events (standard error;
/// `--events` has them all as JSON).
enum StatusLine {
    static func text(_ name: String, _ fields: [String: Any], manual: Bool) -> String? {
        func field(_ key: String) -> String { fields[key].map { "\($0)" } ?? "?" }
        switch name {
        case "connected": return "connected to \(field("server"))"
        case "registered": return "hello-ok: registered as device \(field("deviceId")); waiting for rings"
        case "disconnected": return "disconnected (\(field("reason"))); reconnecting"
        case "connect-failed": return "cannot reach the server (\(field("reason"))); retrying in \(field("retryIn")) s"
        case "ringing":
            return "RING: \(field("doorName"))" + (manual ? " — type accept (a) or reject (r), then Enter" : "")
        case "accepted": return "accepted: talk" + (manual ? "; open (o), mute (m), unmute (u), hangup (h)" : "")
        case "first-frame": return "the door's video is showing"
        case "door-opened": return "ODOMKNUTÉ: the door is open"
        case "ended": return "call ended: \(field("reason"))"
        case "recording": return "recording to \(field("path"))"
        case "recorded":
            return fields["error"] == nil ? "recorded \(field("path"))"
                : "recording stopped (\(field("error"))); the call goes on; kept \(field("path"))"
        case "missed": return "missed a ring from \(field("doorName")) (\(field("reason")): already in a call)"
        case "door-open-failed":
            return field("reason") == "not-connected"
                ? "the door was NOT opened: not connected to the server; try again once reconnected"
                : "the door was NOT opened: no reply from the door; try again"
        case "error": return "error: \(field("message"))"
        case "deleted": return "deleted the old recording \(field("path")) (\(field("reason")))"
        case "reloaded":
            let applied = (fields["applied"] as? [String]) ?? []
            let restart = (fields["needsRestart"] as? [String]) ?? []
            return "reloaded the config: " + (applied.isEmpty ? "nothing changed" : "applied " + applied.joined(separator: ", "))
                + (restart.isEmpty ? "" : "; restart to apply " + restart.joined(separator: ", "))
        default: return nil
        }
    }
}
