import C1nkHome
import Glibc

/// The broker password, from a file only its owner can read (the first line, without its line end).
public enum MQTTPasswordFile {
    public static func read(_ path: String) throws -> String {
        let bytes = try OwnerOnlyFile.read(path, what: "MQTT password file", option: "--mqtt-password-file", holding: "the password")
        let line = bytes.prefix { $0 != 0x0A && $0 != 0x0D }
        guard !line.isEmpty else {
            throw MQTTError("the MQTT password file \(path) is empty; write the password on its first line")
        }
        return String(decoding: line, as: UTF8.self)
    }
}

/// The code that accepting and opening over MQTT need (`--mqtt-open-code-file`):
/// an owner-only file holding the code, its trailing line end stripped.
public enum MQTTOpenCodeFile {
    public static func read(_ path: String) throws -> HomeOpenCode {
        var bytes = try OwnerOnlyFile.read(path, what: "MQTT open code file", option: "--mqtt-open-code-file", holding: "the code")
        if bytes.last == 0x0A { bytes.removeLast() }
        if bytes.last == 0x0D { bytes.removeLast() }
        guard !bytes.isEmpty else {
            throw MQTTError("the MQTT open code file \(path) is empty; write the code in it (owner-only: chmod 600 \(path))")
        }
        guard let text = String(validating: bytes, as: UTF8.self), let code = HomeOpenCode(text) else {
            throw MQTTError("the MQTT open code file \(path) does not hold a code: write 1 to \(HomeOpenCode.maximumBytes) bytes of UTF-8 text on one line")
        }
        return code
    }
}

/// A secret's file: a regular file that neither its group nor others can read, at most 4 KiB read.
enum OwnerOnlyFile {
    static let largest = 4096

    static func read(_ path: String, what: String, option: String, holding: String) throws -> [UInt8] {
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw MQTTError("cannot read the \(what) \(path) (\(String(cString: strerror(errno)))); pass \(option) with a file holding \(holding)")
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw MQTTError("the \(what) \(path) is not a regular file; pass \(option) with a file holding \(holding)")
        }
        guard info.st_mode & 0o077 == 0 else {
            let mode = String(info.st_mode & 0o777, radix: 8)
            throw MQTTError("the \(what) \(path) can be read by others (mode \(mode)); make it owner-only: chmod 600 \(path)")
        }
        guard let file = fopen(path, "r") else {
            throw MQTTError("cannot read the \(what) \(path) (\(String(cString: strerror(errno)))); check its owner and mode")
        }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        while bytes.count < largest {
            let c = fgetc(file)
            if c == EOF { break }
            bytes.append(UInt8(c))
        }
        return bytes
    }
}
