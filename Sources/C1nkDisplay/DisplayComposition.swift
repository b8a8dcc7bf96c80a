/// How a layout is composed from the display's layers: pure decisions the
/// pipeline carries out.
enum DisplayComposition {
    /// The opacity of the call's video and of the base picture under `background`.
    static func alphas(_ background: ScreenLayout.Background) -> (video: Double, base: Double) {
        switch background {
        case .panel: return (0, 1)
        case .video(let veil): return (1, veil)
        }
    }

    /// A still screen (home, the end screens, "Bez pripojenia") needs no
    /// frames once it is up: the pipeline pauses and the sink keeps showing
    /// its last frame, until the next change (the clock, a ring).
    static func isStill(_ layout: ScreenLayout) -> Bool {
        layout.background == .panel && !(layout.pulse?.animated ?? false)
    }

    /// `--reduce-motion`'s pulse: one circle at half opacity, halfway
    /// between the two sizes, where the animation would centre it.
    struct StillCircle: Equatable {
        var diameter: Int
        var offsetX: Int
        var offsetY: Int
        var alpha = 0.5

        init(_ spec: ScreenLayout.Pulse) {
            diameter = Int(((spec.fromDiameter + spec.toDiameter) / 2).rounded())
            offsetX = max(0, Int(spec.centerX) - diameter / 2)
            offsetY = max(0, Int(spec.centerY) - diameter / 2)
        }
    }
}
