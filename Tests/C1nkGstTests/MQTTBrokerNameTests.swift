import Foundation
import Glibc
import XCTest
@testable import C1nkGLib
@testable import C1nkMQTT

/// The broker by its name: looked up off the main context and each address
/// tried, a name that does not resolve reported and tried again with
/// backoff, and over TLS the certificate checked against the name though
/// libmosquitto is handed an address. A real `mosquitto` on loopback.
final class MQTTBrokerNameTests: XCTestCase {
    override func setUp() { Log.echoToStandardError = false }
    override func tearDown() { Log.echoToStandardError = true }

    /// A self-signed certificate for `name` alone (no address in it).
    private static func certificate(for name: String) throws -> (certificate: String, key: String) {
        let directory = temporaryDirectory()
        let openssl = Process()
        openssl.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        openssl.arguments = ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                             "-keyout", directory + "/key.pem", "-out", directory + "/cert.pem",
                             "-subj", "/CN=\(name)", "-addext", "subjectAltName=DNS:\(name)"]
        openssl.standardError = FileHandle.nullDevice
        guard (try? openssl.run()) != nil else { throw XCTSkip("openssl is not installed") }
        openssl.waitUntilExit()
        guard openssl.terminationStatus == 0 else { throw XCTSkip("openssl could not make a certificate") }
        return (directory + "/cert.pem", directory + "/key.pem")
    }

    /// Starts a client and returns its first status.
    private func firstStatus(_ settings: MQTTSettings, clock: any TimerClock = GLibClock.shared) throws -> (MQTTClient.Status, MQTTClient) {
        let client = try MQTTClient(settings: settings, clock: clock)
        var statuses: [MQTTClient.Status] = []
        client.onStatus = { statuses.append($0) }
        client.start()
        waitUntil("an answer from \(settings.host)", timeout: 20) { !statuses.isEmpty }
        return (statuses.first ?? .connectFailed(reason: "none", retryIn: 0), client)
    }

    func testABrokerByItsNameIsLookedUpAndEachOfItsAddressesTried() throws {
        let broker = try MQTTBroker()   // listens on 127.0.0.1 alone: localhost's ::1, if first, is refused
        var settings = broker.settings(clientId: "by-name")
        settings.host = "localhost"
        let (status, client) = try firstStatus(settings)
        XCTAssertEqual(status, .connected)
        client.stop()
    }

    func testANameThatDoesNotResolveIsReportedAndTriedAgainWithBackoff() throws {
        let clock = ManualClock()
        var settings = MQTTSettings(host: "nonexistent.invalid", port: 1883, clientId: "nowhere")
        settings.initialBackoff = 0.5
        let client = try MQTTClient(settings: settings, clock: clock)
        var statuses: [MQTTClient.Status] = []
        client.onStatus = { statuses.append($0) }
        client.start()
        waitUntil("the failed lookup", timeout: 30) { !statuses.isEmpty }
        guard case let .connectFailed(reason, retryIn) = statuses[0] else { return XCTFail("\(statuses)") }
        XCTAssertTrue(reason.hasPrefix("cannot resolve nonexistent.invalid ("), reason)
        XCTAssertTrue(reason.contains("check the name in --mqtt"), reason)
        XCTAssertEqual(retryIn, 0.5)
        clock.advance(by: retryIn)
        waitUntil("the second lookup", timeout: 30) { statuses.count == 2 }
        XCTAssertEqual(statuses[1], .connectFailed(reason: reason, retryIn: 1), "the backoff doubles")
        client.stop()
    }

    func testMQTTSToANameChecksTheCertificateAgainstTheNameThoughAnAddressIsConnectedTo() throws {
        let right = try Self.certificate(for: "localhost")
        let broker = try MQTTBroker(tls: right)
        var settings = broker.settings(clientId: "tls-by-name")
        settings.tls = true
        settings.host = "localhost"
        settings.trustCA = right.certificate
        let (good, client) = try firstStatus(settings)
        XCTAssertEqual(good, .connected, "a certificate for localhost, reached at 127.0.0.1")
        client.stop()

        // The address itself is not in the certificate: libmosquitto's own check refuses it, as before.
        var byAddress = settings
        byAddress.host = "127.0.0.1"
        let (refused, other) = try firstStatus(byAddress)
        guard case let .connectFailed(reason, _) = refused else { return XCTFail("\(refused)") }
        XCTAssertTrue(reason.contains("TLS handshake failed"), reason)
        other.stop()
        broker.stop()

        // A trusted certificate for another name: refused, though the authority is trusted.
        let wrong = try Self.certificate(for: "elsewhere.example")
        let impostor = try MQTTBroker(tls: wrong)
        var misnamed = impostor.settings(clientId: "tls-wrong-name")
        misnamed.tls = true
        misnamed.host = "localhost"
        misnamed.trustCA = wrong.certificate
        let (mismatch, third) = try firstStatus(misnamed)
        guard case let .connectFailed(why, _) = mismatch else { return XCTFail("a certificate for another name was taken: \(mismatch)") }
        XCTAssertTrue(why.contains("TLS handshake failed"), why)
        third.stop()
    }

    func testMQTTSChecksTheBrokersCertificate() throws {
        let tls = try MQTTBroker.makeCertificate()
        let broker = try MQTTBroker(tls: tls)
        // Not trusted: the system's CAs do not know this certificate.
        var untrusted = broker.settings(clientId: "answerer")
        untrusted.tls = true
        let (refused, first) = try firstStatus(untrusted)
        guard case let .connectFailed(reason, _) = refused else { return XCTFail("\(refused)") }
        XCTAssertTrue(reason.contains("TLS handshake failed") && reason.contains("--mqtt-trust-ca"), reason)
        XCTAssertFalse(first.isConnected)
        first.stop()

        var trusted = untrusted
        trusted.trustCA = tls.certificate
        let (status, secure) = try firstStatus(trusted)
        XCTAssertEqual(status, .connected, "connected over TLS")
        secure.stop()
    }
}
