extension StringProtocol {
    /// The text without the spaces and tabs at either end, exactly what
    /// Foundation's `trimmingCharacters(in: .whitespaces)` removes, without
    /// Foundation: Unicode's space separators (general category Zs), the tab
    /// and U+200B (zero width space), the set Foundation 6.3 uses on Linux.
    package func trimmingWhitespace() -> String {
        trimming(where: Self.isWhitespace)
    }

    /// The text without whitespace or line ends at either end, what Foundation's
    /// `trimmingCharacters(in: .whitespacesAndNewlines)` removes: the whitespace
    /// above and U+000A to U+000D, U+0085, U+2028 and U+2029.
    package func trimmingWhitespaceAndNewlines() -> String {
        trimming { Self.isWhitespace($0) || ("\u{A}"..."\u{D}").contains($0) || $0 == "\u{85}" || $0 == "\u{2028}" || $0 == "\u{2029}" }
    }

    private static func isWhitespace(_ scalar: Unicode.Scalar) -> Bool {
        scalar == "\t" || scalar == "\u{200B}" || scalar.properties.generalCategory == .spaceSeparator
    }

    private func trimming(where isTrimmed: (Unicode.Scalar) -> Bool) -> String {
        let scalars = Substring(self).unicodeScalars
        guard let first = scalars.firstIndex(where: { !isTrimmed($0) }),
              let last = scalars.lastIndex(where: { !isTrimmed($0) }) else { return "" }
        return String(Substring(scalars[first...last]))
    }
}
