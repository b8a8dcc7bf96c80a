import Glibc

/// Files and pipes read to their end, as Foundation's `FileHandle` read them
/// (whatever size a /proc file claims): the answerer does not link Foundation,
/// to keep ICU out of its memory.
/// At most `limit` bytes are read.
package func readToEnd(_ fd: Int32, limit: Int = .max) -> [UInt8] {
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 16_384)
    while bytes.count < limit {
        let count = read(fd, &buffer, min(buffer.count, limit - bytes.count))
        if count > 0 { bytes += buffer[0..<count]; continue }
        if count < 0 && errno == EINTR { continue }
        break
    }
    return bytes
}

/// The bytes of the file at `path`, at most `limit` of them; nil when it cannot be opened.
package func readFile(atPath path: String, limit: Int = .max) -> [UInt8]? {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    return readToEnd(fd, limit: limit)
}
