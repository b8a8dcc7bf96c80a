import CGLib

/// What a PEM certificate names and its SHA-256 fingerprint, read with GIO
/// (the names a browser checks: subjectAltName IP and DNS entries).
public struct TLSCertificateInfo: Sendable {
    public let ipAddresses: [String]
    public let dnsNames: [String]
    /// The SHA-256 of the certificate (DER), as `AB:CD:…`: what a phone shows to check it.
    public let sha256: String

    public init(file path: String) throws {
        let certificate = try GLibError.check { g_tls_certificate_new_from_file(path, $0) }
        guard let certificate else { throw GLibError(domain: "c1nk", code: 0, message: "no certificate in \(path)") }
        defer { g_object_unref(gpointer(certificate)) }
        var ips: [String] = []
        if let array = g_tls_certificate_get_ip_addresses(certificate) {
            for index in 0..<Int(array.pointee.len) {
                guard let address = array.pointee.pdata[index], let text = g_inet_address_to_string(address.assumingMemoryBound(to: GInetAddress.self)) else { continue }
                ips.append(String(cString: text))
                g_free(text)
            }
            g_ptr_array_unref(array)
        }
        var names: [String] = []
        if let array = g_tls_certificate_get_dns_names(certificate) {
            for index in 0..<Int(array.pointee.len) {
                guard let bytes = array.pointee.pdata[index] else { continue }
                var size: gsize = 0
                guard let data = g_bytes_get_data(OpaquePointer(bytes), &size) else { continue }
                names.append(String(decoding: UnsafeRawBufferPointer(start: data, count: Int(size)), as: UTF8.self))
            }
            g_ptr_array_unref(array)
        }
        ipAddresses = ips
        dnsNames = names
        // The boxed GByteArray of the DER, a reference of our own to drop.
        let der = c1nk_object_get_object(gpointer(certificate), "certificate").map { $0.assumingMemoryBound(to: GByteArray.self) }
        var hex = ""
        if let der {
            if let sum = g_compute_checksum_for_data(G_CHECKSUM_SHA256, der.pointee.data, gsize(der.pointee.len)) {
                hex = String(cString: sum)
                g_free(sum)
            }
            g_byte_array_unref(der)
        }
        var pairs: [String] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2, limitedBy: hex.endIndex) ?? hex.endIndex
            pairs.append(hex[index..<next].uppercased())
            index = next
        }
        sha256 = pairs.joined(separator: ":")
    }
}
