import Glibc

/// The folder for temporary files with a slash at its end (`$TMPDIR`, else `/tmp/`), as
/// Foundation's `temporaryFolder()` gave it: the answerer does not link Foundation,
/// to keep ICU out of its memory.
func temporaryFolder() -> String {
    guard let value = getenv("TMPDIR").map({ String(cString: $0) }), !value.isEmpty else { return "/tmp/" }
    return value.hasSuffix("/") ? value : value + "/"
}
