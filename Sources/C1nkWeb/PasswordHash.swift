import CCrypt

/// The web page's password as a yescrypt hash (libcrypt, as /etc/shadow):
/// made once by `c1nk-gst-answer web-password`, checked on each login.
public enum PasswordHash {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// Hashes `password` with a fresh salt.
    public static func make(_ password: String) throws -> String {
        var out = [CChar](repeating: 0, count: 512)
        guard c1nk_crypt_hash(password, &out, Int32(out.count)) == 0 else {
            throw Failure(description: "libcrypt could not hash the password (yescrypt)")
        }
        return String(decoding: out.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Whether `password` is the one `hash` was made from.
    public static func verify(_ password: String, hash: String) -> Bool {
        guard isHash(hash) else { return false }
        return c1nk_crypt_verify(password, hash) == 1
    }

    /// A hash this accepts: yescrypt (`$y$`), or SHA-512 crypt (`$6$`).
    public static func isHash(_ text: String) -> Bool {
        (text.hasPrefix("$y$") || text.hasPrefix("$6$")) && text.count > 20 && !text.contains(where: \.isWhitespace)
    }
}
