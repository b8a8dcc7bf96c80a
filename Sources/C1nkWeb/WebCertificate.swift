import C1nkGLibBase
import FoundationEssentials
import Glibc

/// The HTTPS certificate when none is given: a self-signed one (P-256, ten
/// years), made with Debian's `openssl` in the state folder and kept there
/// owner-only (`web-cert.pem`, `web-key.pem`). It names `localhost`, the
/// host name (and `.local`), loopback and every LAN address of the machine,
/// so a phone that trusts it once opens the page by any of them; one made
/// earlier that lacks a name or address the machine has now is made anew.
public enum WebCertificate {
    public static func defaultFolder(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") { return state + "/c1nk" }
        return (environment["HOME"] ?? FileManager.default.homeDirectoryForCurrentUser.path) + "/.local/state/c1nk"
    }

    /// The subjectAltName entries of a certificate for this machine.
    public static func names(hostname: String, addresses: [String]) -> (dns: [String], ip: [String]) {
        (["localhost", hostname, hostname + ".local"], ["127.0.0.1", "::1"] + addresses)
    }

    /// What `names` holds that the certificate at `path` lacks (all of them when it cannot be read).
    public static func missing(in path: String, hostname: String, addresses: [String]) -> [String] {
        let wanted = names(hostname: hostname, addresses: addresses)
        guard let info = try? TLSCertificateInfo(file: path) else { return wanted.dns + wanted.ip }
        return wanted.dns.filter { !info.dnsNames.contains($0) } + wanted.ip.filter { !info.ipAddresses.contains($0) }
    }

    /// The machine's addresses on its networks: IPv4 and global IPv6, not loopback or link-local.
    public static func lanAddresses() -> [String] {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0 else { return [] }
        defer { freeifaddrs(list) }
        var result: [String] = []
        var entry = list
        while let current = entry {
            defer { entry = current.pointee.ifa_next }
            guard let address = current.pointee.ifa_addr, current.pointee.ifa_flags & UInt32(IFF_LOOPBACK) == 0 else { continue }
            var host = [CChar](repeating: 0, count: Int(NI_MAXHOST))
            let family = Int32(address.pointee.sa_family)
            guard family == AF_INET || family == AF_INET6 else { continue }
            let length = socklen_t(family == AF_INET ? MemoryLayout<sockaddr_in>.size : MemoryLayout<sockaddr_in6>.size)
            guard getnameinfo(address, length, &host, socklen_t(host.count), nil, 0, NI_NUMERICHOST) == 0 else { continue }
            let text = String(decoding: host.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if text.lowercased().hasPrefix("fe80") || text.contains("%") || result.contains(text) { continue }
            result.append(text)
        }
        return result
    }

    /// The certificate and key in `folder`, made first if absent, or anew if
    /// it lacks a name or an address of `addresses` (the machine's, by default).
    public static func selfSigned(in folder: String, hostname: String,
                                  addresses: [String] = lanAddresses()) throws -> (certificate: String, key: String) {
        let certificate = folder + "/web-cert.pem", key = folder + "/web-key.pem"
        if access(certificate, R_OK) == 0, access(key, R_OK) == 0 {
            let lacking = missing(in: certificate, hostname: hostname, addresses: addresses)
            if lacking.isEmpty { return (certificate, key) }
            Log.web.info("the web page's certificate \(certificate) does not name \(lacking.joined(separator: ", ")): making it anew (phones that trusted the old one ask again)")
        }
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let wanted = names(hostname: hostname, addresses: addresses)
        let names = wanted.dns.map { "DNS:" + $0 } + wanted.ip.map { "IP:" + $0 }
        let arguments = ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                             "-keyout", key + ".new", "-out", certificate + ".new", "-days", "3650",
                             "-subj", "/CN=c1nk-gst " + hostname, "-addext", "subjectAltName=" + names.joined(separator: ",")]
        let old = umask(0o077)
        defer { umask(old) }
        let process: ChildProcess
        do { process = try ChildProcess("/usr/bin/openssl", arguments, output: .null, error: .null) } catch {
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
