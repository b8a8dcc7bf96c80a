import Foundation
import XCTest
@testable import C1nkGLib
@testable import C1nkLocal
@testable import C1nkSignaling

/// `wss://`: the certificate is always checked; `--trust-ca` adds an authority.
final class SecureSignalingTests: XCTestCase {
    func testUntrustedCertificateIsRefusedAndATrustedAuthorityIsAccepted() throws {
        Log.echoToStandardError = false
        defer { Log.echoToStandardError = true }
        var options = SignalServer.Options()
        options.tlsCertificate = try TestCertificate.make()
        let server = try SignalServer(options)
        XCTAssertTrue(server.url.hasPrefix("wss://"))

        let untrusting = try makeClient(server.url)
        let refused = SignalEventRecorder()
        refused.attach(to: untrusting)
        untrusting.start()
        waitUntil("a refused connection") {
            refused.events.contains { if case .connectFailed = $0.event { return true } else { return false } }
        }
        XCTAssertEqual(refused.readyCount, 0, "no connection to a server whose certificate nobody vouches for")
        XCTAssertTrue(server.connectedAppIds.isEmpty)
        untrusting.stop()

        var configuration = SignalClient.Configuration(url: server.url, deviceId: UUID().uuidString)
        configuration.trustedCAFile = options.tlsCertificate!.certificate
        configuration.timing = fastTiming
        let trusting = try SignalClient(configuration)
        let accepted = SignalEventRecorder()
        accepted.attach(to: trusting)
        trusting.start()
        waitUntil("hello-ok over wss") { accepted.readyCount == 1 }
        trusting.stop()
    }

    func testAMissingAuthorityFileIsAClearError() {
        var configuration = SignalClient.Configuration(url: "wss://127.0.0.1:1/ws", deviceId: "d")
        configuration.trustedCAFile = "/no/such/ca.pem"
        XCTAssertThrowsError(try SignalClient(configuration)) { error in
            XCTAssertTrue("\(error)".contains("/no/such/ca.pem"), "\(error)")
        }
    }
}
