import Glibc

/// Writes `text` to standard error as it is (the commands' messages to the
/// person running them). Safe from any thread, unlike C's `stderr` global.
public func writeToStandardError(_ text: String) {
    var bytes = Array(text.utf8)[...]
    while !bytes.isEmpty {
        let written = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
        if written > 0 {
            bytes = bytes.dropFirst(written)
        } else if written < 0 && errno == EINTR {
            continue
        } else {
            // As Foundation's FileHandle did: a command that cannot speak stops.
            fatalError("cannot write to standard error: errno \(errno)")
        }
    }
}
