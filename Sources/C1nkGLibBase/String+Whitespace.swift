extension StringProtocol {
    /// The text without the spaces and tabs at either end, exactly what
    /// Foundation's `trimmingCharacters(in: .whitespaces)` removes, without
    /// Foundation: Unicode's space separators (general category Zs), the tab
    /// and U+200B (zero width space), the set Foundation 6.3 uses on Linux.
    package func trimmingWhitespace() -> String {
        let scalars = Substring(self).unicodeScalars
        func isWhitespace(_ scalar: Unicode.Scalar) -> Bool {
            scalar == "\t" || scalar == "\u{200B}" || scalar.properties.generalCategory == .spaceSeparator
        }
        guard let first = scalars.firstIndex(where: { !isWhitespace($0) }),
              let last = scalars.lastIndex(where: { !isWhitespace($0) }) else { return "" }
        return String(Substring(scalars[first...last]))
    }
}
