/// A request path as a file below the web root, or nil: percent-decoded,
/// every segment a plain name (no `..`, `.`, hidden names, backslashes or
/// NUL, also when encoded), `/` the index page.
public enum WebPath {
    public static func resolve(_ rawPath: String) -> String? {
        guard rawPath.hasPrefix("/"), rawPath.utf8.count <= 1024 else { return nil }
        guard let decoded = percentDecoded(rawPath) else { return nil }
        if decoded == "/" { return "index.html" }
        let segments = decoded.dropFirst().split(separator: "/", omittingEmptySubsequences: false)
        for segment in segments {
            guard !segment.isEmpty, !segment.hasPrefix("."), !segment.contains("\\"),
                  !segment.contains("\0"), !segment.contains(where: { $0.isNewline }) else { return nil }
        }
        return segments.joined(separator: "/")
    }

    /// `%XX` decoded; nil for a malformed escape or bytes that are not UTF-8.
    public static func percentDecoded(_ text: String) -> String? {
        var bytes: [UInt8] = []
        var iterator = Array(text.utf8).makeIterator()
        while let byte = iterator.next() {
            if byte == UInt8(ascii: "%") {
                guard let high = iterator.next(), let low = iterator.next(),
                      let value = UInt8(String(decoding: [high, low], as: UTF8.self), radix: 16) else { return nil }
                bytes.append(value)
            } else {
                bytes.append(byte)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    /// The content type of a file by its extension.
    public static func contentType(_ path: String) -> String {
        let ext = path.split(separator: ".").last.map { $0.lowercased() } ?? ""
        switch ext {
        case "html": return "text/html; charset=utf-8"
        case "js": return "text/javascript; charset=utf-8"
        case "css": return "text/css; charset=utf-8"
        case "svg": return "image/svg+xml"
        case "png": return "image/png"
        case "woff2": return "font/woff2"
        case "otf": return "font/otf"
        case "json": return "application/json"
        case "mkv": return "video/x-matroska"
        case "mp4": return "video/mp4"
        default: return "application/octet-stream"
        }
    }
}
