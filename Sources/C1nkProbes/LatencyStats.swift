/// Latency figures of one call or one benchmark run.
public struct LatencyStats: Equatable, Sendable, Codable {
    public var count: Int
    public var p50: Double
    public var p95: Double
    public var p99: Double
    public var max: Double

    public init(_ samples: [Double]) {
        let sorted = samples.sorted()
        count = sorted.count
        func percentile(_ p: Double) -> Double {
            guard !sorted.isEmpty else { return 0 }
            return sorted[Swift.min(sorted.count - 1, Int((p * Double(sorted.count - 1)).rounded()))]
        }
        p50 = percentile(0.5)
        p95 = percentile(0.95)
        p99 = percentile(0.99)
        max = sorted.last ?? 0
    }

    public var fields: [String: Any] {
        ["count": count, "p50": rounded(p50), "p95": rounded(p95), "p99": rounded(p99), "max": rounded(max)]
    }

    private func rounded(_ value: Double) -> Double { (value * 100).rounded() / 100 }
}
