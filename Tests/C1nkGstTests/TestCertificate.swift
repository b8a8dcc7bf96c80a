import Foundation
import XCTest

/// A self-signed certificate for 127.0.0.1 (its own authority), made with
/// openssl, for the TLS listeners the tests start (wss://, mqtts://).
enum TestCertificate {
    static func make() throws -> (certificate: String, key: String) {
        let directory = temporaryDirectory()
        let openssl = Process()
        openssl.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        openssl.arguments = ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                             "-keyout", directory + "/key.pem", "-out", directory + "/cert.pem",
                             "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"]
        openssl.standardError = FileHandle.nullDevice
        guard (try? openssl.run()) != nil else { throw XCTSkip("openssl is not installed") }
        openssl.waitUntilExit()
        guard openssl.terminationStatus == 0 else { throw XCTSkip("openssl could not make a certificate") }
        return (directory + "/cert.pem", directory + "/key.pem")
    }
}
