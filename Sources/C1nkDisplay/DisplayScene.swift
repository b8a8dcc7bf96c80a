/// Everything one picture of the display depends on. The display renders a
/// scene only when it differs from the last one: per state change, and once a
/// minute for the clock.
struct DisplayScene: Equatable, Sendable {
    var screen: DisplayMachine.Screen = .idle
    var connected = false
    /// The overline of the home screen, e.g. "BYTOVÝ DOM · HLAVNÁ 25".
    var building = "BYTOVÝ DOM"
    /// "14:32" and "utorok 1. decembra", formatted by the caller.
    var clock = ""
    var date = ""
    /// The last rings, newest first.
    var history: [Row] = []
    /// `--reduce-motion`: a static circle instead of the pulse.
    var reduceMotion = false

    /// A list row: a title over a dimmer subtitle.
    struct Row: Equatable, Sendable {
        var title: String
        var subtitle: String
        init(title: String, subtitle: String) {
            self.title = title
            self.subtitle = subtitle
        }
    }

    init() {}
}
