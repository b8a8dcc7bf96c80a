import C1nkGLibBase
import FoundationEssentials
import Glibc

/// The web page's secret files: the password hash (`--web-password-file`) and
/// the scripts' bearer token (`--web-token-file`). Each is owner-only (0600),
/// its secret on the first line.
public enum WebSecretFile {
    public struct Problem: Error, CustomStringConvertible {
        public let description: String
        public init(_ description: String) { self.description = description }
    }

    /// The first line of `path`, refusing a file others may read.
    public static func read(_ path: String, what: String) throws -> String {
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw Problem("cannot read the \(what) file \(path): \(String(cString: strerror(errno)))")
        }
        guard info.st_mode & 0o077 == 0 else {
            throw Problem("the \(what) file \(path) may be read by others; chmod 600 \(path)")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw Problem("cannot read the \(what) file \(path)")
        }
        let line = String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).first ?? ""
        let secret = line.trimmingWhitespace()
        guard !secret.isEmpty else { throw Problem("the \(what) file \(path) is empty") }
        return secret
    }

    /// The password hash in `path`.
    public static func readPasswordHash(_ path: String) throws -> String {
        let hash = try read(path, what: "web password")
        guard PasswordHash.isHash(hash) else {
            throw Problem("the web password file \(path) holds no password hash; set it with c1nk-gst-answer web-password --web-password-file \(path)")
        }
        return hash
    }

    /// The bearer token in `path` (at least 16 characters).
    public static func readToken(_ path: String) throws -> String {
        let token = try read(path, what: "web token")
        guard token.count >= 16 else { throw Problem("the web token in \(path) is shorter than 16 characters; use a long random one (openssl rand -hex 32)") }
        return token
    }

    /// Writes `line` to `path` owner-only, replacing it whole (a temporary file renamed).
    public static func write(_ line: String, to path: String) throws {
        let folder = path.deletingLastPathComponent
        if !folder.isEmpty {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
        let temporary = path + ".new"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw Problem("cannot write \(temporary): \(String(cString: strerror(errno)))") }
        let bytes = Array((line + "\n").utf8)
        let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        fchmod(fd, 0o600)
        close(fd)
        guard written == bytes.count, rename(temporary, path) == 0 else {
            unlink(temporary)
            throw Problem("cannot write \(path): \(String(cString: strerror(errno)))")
        }
    }
}
