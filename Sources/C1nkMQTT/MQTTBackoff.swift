/// The waits between connection attempts: doubling from `initial` up to `maximum`.
struct MQTTBackoff {
    let initial: Double
    let maximum: Double
    private var current: Double

    init(initial: Double, maximum: Double) {
        self.initial = initial
        self.maximum = max(initial, maximum)
        current = initial
    }

    mutating func next() -> Double {
        defer { current = min(maximum, current * 2) }
        return current
    }

    mutating func reset() { current = initial }
}
