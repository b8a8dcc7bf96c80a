/// The part of a file a `Range` header asks for (one range of bytes; the
/// page's player asks for one to seek). Several ranges, another unit or a
/// malformed header are ignored, as HTTP allows: the whole file is sent.
public enum HTTPRange: Equatable, Sendable {
    case whole
    /// Bytes `first` through `last`, both included (206 Partial Content).
    case part(first: Int64, last: Int64)
    /// Nothing of the file is in the range (416).
    case unsatisfiable

    public static func resolve(_ header: String?, size: Int64) -> HTTPRange {
        guard let header, header.hasPrefix("bytes="), !header.contains(",") else { return .whole }
        let spec = header.dropFirst("bytes=".count).trimmingWhitespace()
        guard let dash = spec.firstIndex(of: "-") else { return .whole }
        let from = spec[..<dash], to = spec[spec.index(after: dash)...]
        if from.isEmpty {
            // The last N bytes.
            guard let count = Int64(to), count >= 0 else { return .whole }
            guard count > 0, size > 0 else { return .unsatisfiable }
            return .part(first: max(0, size - count), last: size - 1)
        }
        guard let first = Int64(from), first >= 0 else { return .whole }
        var last = size - 1
        if !to.isEmpty {
            guard let end = Int64(to), end >= first else { return .whole }
            last = min(end, size - 1)
        }
        guard first < size else { return .unsatisfiable }
        return .part(first: first, last: last)
    }
}
