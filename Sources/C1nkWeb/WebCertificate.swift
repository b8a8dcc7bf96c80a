import C1nkGLibBase
import Foundation
import Glibc

/// The HTTPS certificate when none is given: a self-signed one (P-256, ten
/// years), made once with Debian's `openssl` in the state folder and kept
/// there owner-only (`web-cert.pem`, `web-key.pem`).
public enum WebCertificate {
    public static func defaultFolder(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") { return state + "/c1nk" }
        return (environment["HOME"] ?? NSHomeDirectory()) + "/.local/state/c1nk"
    }

    /// The certificate and key in `folder`, made first if absent.
    public static func selfSigned(in folder: String, hostname: String) throws -> (certificate: String, key: String) {
        let certificate = folder + "/web-cert.pem", key = folder + "/web-key.pem"
        if access(certificate, R_OK) == 0, access(key, R_OK) == 0 { return (certificate, key) }
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        let names = ["DNS:localhost", "IP:127.0.0.1", "DNS:" + hostname, "DNS:" + hostname + ".local"]
        process.arguments = ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                             "-keyout", key + ".new", "-out", certificate + ".new", "-days", "3650",
                             "-subj", "/CN=c1nk-gst " + hostname, "-addext", "subjectAltName=" + names.joined(separator: ",")]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        let old = umask(0o077)
        defer { umask(old) }
        do { try process.run() } catch {
            throw WebSecretFile.Problem("cannot run /usr/bin/openssl to make the web page's certificate (apt-get install openssl), or give --web-cert and --web-key")
        }
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw WebSecretFile.Problem("openssl could not make the web page's certificate in \(folder); give --web-cert and --web-key")
        }
        chmod(key + ".new", 0o600)
        chmod(certificate + ".new", 0o600)
        guard rename(key + ".new", key) == 0, rename(certificate + ".new", certificate) == 0 else {
            throw WebSecretFile.Problem("cannot write the web page's certificate in \(folder)")
        }
        Log.web.info("made a self-signed certificate for the web page: \(certificate)")
        return (certificate, key)
    }
}
