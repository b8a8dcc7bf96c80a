import Foundation
import XCTest
@testable import C1nkGLib
@testable import C1nkWeb

/// The self-signed certificate names the machine's LAN addresses (so a
/// phone opens the page by its address without a name mismatch), is made
/// anew when it lacks a current one, and its fingerprint is the one openssl sees.
final class WebCertificateTests: XCTestCase {
    override func setUp() { Log.echoToStandardError = false }
    override func tearDown() { Log.echoToStandardError = true }

    func testTheCertificateNamesTheLANAddressesAndIsRenewedWhenOneIsMissing() throws {
        let folder = temporaryDirectory()
        let first = try WebCertificate.selfSigned(in: folder, hostname: "doorbell", addresses: ["192.0.2.7", "2001:db8::7"])
        let info = try TLSCertificateInfo(file: first.certificate)
        XCTAssertEqual(Set(info.ipAddresses), ["127.0.0.1", "::1", "192.0.2.7", "2001:db8::7"])
        XCTAssertEqual(Set(info.dnsNames), ["localhost", "doorbell", "doorbell.local"])
        XCTAssertEqual(info.sha256.count, 32 * 3 - 1, info.sha256)
        XCTAssertEqual(info.sha256, try Self.opensslFingerprint(first.certificate), "the fingerprint a phone can check")

        _ = try WebCertificate.selfSigned(in: folder, hostname: "doorbell", addresses: ["192.0.2.7"])
        XCTAssertEqual(try TLSCertificateInfo(file: first.certificate).sha256, info.sha256, "nothing missing: kept")

        _ = try WebCertificate.selfSigned(in: folder, hostname: "doorbell", addresses: ["192.0.2.7", "198.51.100.3"])
        let renewed = try TLSCertificateInfo(file: first.certificate)
        XCTAssertNotEqual(renewed.sha256, info.sha256, "a new address: made anew")
        XCTAssertTrue(renewed.ipAddresses.contains("198.51.100.3"), "\(renewed.ipAddresses)")
        XCTAssertEqual(WebCertificate.missing(in: first.certificate, hostname: "doorbell", addresses: ["198.51.100.3"]), [])
        XCTAssertEqual(WebCertificate.missing(in: first.certificate, hostname: "gate", addresses: []), ["gate", "gate.local"])
    }

    func testTheDefaultCertificateNamesThisMachinesAddresses() throws {
        let folder = temporaryDirectory()
        let made = try WebCertificate.selfSigned(in: folder, hostname: "doorbell")
        let addresses = WebCertificate.lanAddresses()
        XCTAssertFalse(addresses.contains("127.0.0.1"))
        let info = try TLSCertificateInfo(file: made.certificate)
        for address in addresses { XCTAssertTrue(info.ipAddresses.contains(address), "\(address) in \(info.ipAddresses)") }
    }

    static func opensslFingerprint(_ path: String) throws -> String {
        let openssl = Process()
        openssl.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        openssl.arguments = ["x509", "-in", path, "-noout", "-fingerprint", "-sha256"]
        let out = Pipe()
        openssl.standardOutput = out
        try openssl.run()
        openssl.waitUntilExit()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        return String(text.split(separator: "=").last ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// `doctor` says where the page and the restream listen and prints the certificate's fingerprint.
    func testDoctorPrintsTheFingerprintAndTheAddresses() throws {
        let directory = temporaryDirectory()
        let made = try WebCertificate.selfSigned(in: directory + "/c1nk", hostname: "doorbell", addresses: [])
        let fingerprint = try Self.opensslFingerprint(made.certificate)
        let doctor = try AnswerCommandTests.Command("c1nk-gst-answer", [
            "doctor", "--server", "ws://127.0.0.1:1/ws", "--device-id-file", directory + "/id", "--stun", "none",
            "--sink", "fakesink", "--audio-sink", "fakesink", "--audio-source", "audiotestsrc",
            "--web-port", "8443", "--rtsp-port", "8554", "--rtsp-anonymous"], environment: ["XDG_STATE_HOME": directory])
        _ = doctor.wait()
        XCTAssertTrue(doctor.stdout.contains("SHA-256 \(fingerprint)"), doctor.stdout)
        XCTAssertTrue(doctor.stdout.contains("web page: HTTPS on every IPv4 interface (0.0.0.0) port 8443"), doctor.stdout)
        XCTAssertTrue(doctor.stdout.contains("RTSP restream on every IPv4 interface (0.0.0.0) port 8554"), doctor.stdout)
        XCTAssertTrue(doctor.stdout.contains("so the next start makes it anew") || WebCertificate.lanAddresses().isEmpty,
                      "made without this machine's addresses: " + doctor.stdout)
        let one = try AnswerCommandTests.Command("c1nk-gst-answer", [
            "doctor", "--server", "ws://127.0.0.1:1/ws", "--device-id-file", directory + "/id", "--stun", "none",
            "--sink", "fakesink", "--audio-sink", "fakesink", "--audio-source", "audiotestsrc",
            "--web-port", "8443", "--web-address", "127.0.0.1"], environment: ["XDG_STATE_HOME": directory])
        _ = one.wait()
        XCTAssertTrue(one.stdout.contains("web page: HTTPS on 127.0.0.1 port 8443 only"), one.stdout)
    }
}
