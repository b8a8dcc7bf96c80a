/// Everything one picture of the display depends on. The display renders a
/// scene only when it differs from the last one: per state change, and once a
/// minute for the clock.
public struct DisplayScene: Equatable, Sendable {
    public var screen: DisplayMachine.Screen = .idle
    public var connected = false
    /// The overline of the home screen, e.g. "BYTOVÝ DOM · HLAVNÁ 25".
    public var building = "BYTOVÝ DOM"
    /// "14:32" and "utorok 1. decembra", formatted by the caller.
    public var clock = ""
    public var date = ""
    /// The last rings, newest first.
    public var history: [Row] = []
    /// `--reduce-motion`: a static circle instead of the pulse.
    public var reduceMotion = false

    /// A list row of seed §9.5.
    public struct Row: Equatable, Sendable {
        public var title: String
        public var subtitle: String
        public init(title: String, subtitle: String) {
            self.title = title
            self.subtitle = subtitle
        }
    }

    public init() {}
}
