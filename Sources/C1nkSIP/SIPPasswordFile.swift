import Glibc

/// The registrar password (`--sip-password-file`): the first line of a regular
/// file that neither its group nor others can read, at most 4 KiB read.
public enum SIPPasswordFile {
    public struct Unusable: Error, CustomStringConvertible {
        public let description: String
    }

    public static let largest = 4096

    public static func read(_ path: String) throws -> String {
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw Unusable(description: "cannot read the SIP password file \(path) (\(String(cString: strerror(errno)))); pass --sip-password-file with a file holding the password")
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw Unusable(description: "the SIP password file \(path) is not a regular file; pass --sip-password-file with a file holding the password")
        }
        guard info.st_mode & 0o077 == 0 else {
            throw Unusable(description: "the SIP password file \(path) can be read by others (mode \(String(info.st_mode & 0o777, radix: 8))); make it owner-only: chmod 600 \(path)")
        }
        guard let file = fopen(path, "r") else {
            throw Unusable(description: "cannot read the SIP password file \(path) (\(String(cString: strerror(errno)))); check its owner and mode")
        }
        defer { fclose(file) }
        var bytes = [UInt8](repeating: 0, count: largest)
        let count = fread(&bytes, 1, largest, file)
        let line = bytes.prefix(count).prefix { $0 != 0x0A && $0 != 0x0D }
        guard !line.isEmpty else {
            throw Unusable(description: "the SIP password file \(path) is empty; write the password on its first line")
        }
        guard let password = String(validating: line, as: UTF8.self) else {
            throw Unusable(description: "the SIP password file \(path) is not UTF-8 text; write the password on its first line")
        }
        return password
    }
}
