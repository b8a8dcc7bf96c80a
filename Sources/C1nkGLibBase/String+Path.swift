/// File paths taken apart as Foundation's `NSString` path methods did (repeated
/// slashes as one, a trailing slash ignored): the answerer does not link
/// Foundation, to keep ICU out of its memory.
extension String {
    /// The path with its last component removed: `/a/b` → `/a`, `/a` → `/`, `b` → ``.
    package var deletingLastPathComponent: String {
        let path = fixingSlashes
        if path == "/" || path.isEmpty { return path }
        guard let slash = path.lastIndex(of: "/") else { return "" }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// The last component: `/a/b.mkv` → `b.mkv`, `/` → `/`.
    package var lastPathComponent: String {
        let path = fixingSlashes
        guard path.count > 1, let slash = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: slash)...])
    }

    /// The last component's extension without its dot (`mkv`); empty when it has none (`.hidden` has none).
    package var pathExtension: String {
        let path = fixingSlashes
        guard path.count > 1, let dot = path.startOfPathExtension else { return "" }
        return String(path[dot...])
    }

    /// The path without the last component's extension and its dot.
    package var deletingPathExtension: String {
        let path = fixingSlashes
        guard path.count > 1, let dot = path.startOfPathExtension else { return path }
        return String(path[..<path.index(before: dot)])
    }

    /// The path with `component` after a slash (one, unless the path ends with one).
    package func appendingPathComponent(_ component: String) -> String {
        if isEmpty { return component }
        return hasSuffix("/") ? self + component : self + "/" + component
    }

    /// Repeated slashes as one, and no trailing slash but for `/` itself.
    private var fixingSlashes: String {
        var result = ""
        var previousWasSlash = false
        for character in self {
            if character == "/" && previousWasSlash { continue }
            previousWasSlash = character == "/"
            result.append(character)
        }
        if result.count > 1 && result.hasSuffix("/") { result.removeLast() }
        return result
    }

    /// Where the extension of the last component starts (after its dot), if it has one.
    private var startOfPathExtension: String.Index? {
        let start = lastIndex(of: "/").map { index(after: $0) } ?? startIndex
        if self[start...] == ".." { return nil }
        guard let dot = self[start...].lastIndex(of: "."), dot != start else { return nil }
        return index(after: dot)
    }
}
