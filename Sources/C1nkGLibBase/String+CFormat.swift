import Glibc

/// Text formatted by C's printf rules, as Foundation's `String(format:)` did
/// for numbers: the answerer does not link Foundation, to keep ICU out of its memory.
extension String {
    /// `format` with `arguments`, through `vsnprintf` (`%.2f`, `%02d`; no `%@`).
    package init(printf format: String, _ arguments: CVarArg...) {
        let needed = Int(withVaList(arguments) { vsnprintf(nil, 0, format, $0) })
        guard needed > 0 else { self = ""; return }
        var buffer = [CChar](repeating: 0, count: needed + 1)
        _ = withVaList(arguments) { vsnprintf(&buffer, buffer.count, format, $0) }
        self = String(decoding: buffer.prefix(needed).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
