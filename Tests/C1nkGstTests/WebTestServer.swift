import Foundation
import XCTest
@testable import C1nkGLib
@testable import C1nkWeb

/// A `WebServer` in the test process (HTTPS with a test certificate, or
/// plain HTTP on loopback), its password set, a page of one file: for the
/// tests that measure the server itself, with `WebClient` (curl) as the browser.
enum WebTestServer {
    static let password = "correct horse battery"
    nonisolated(unsafe) private static var cachedHash: String?

    static func make(plainHTTP: Bool = false, sessions: WebSessions = WebSessions(), token: String? = nil,
                     recordings: String? = nil, configure: (inout WebServer.Settings) -> Void = { _ in }) throws -> WebServer {
        let root = temporaryDirectory()
        try "<!doctype html><title>c1nk</title>".write(toFile: root + "/index.html", atomically: true, encoding: .utf8)
        let hash = try cachedHash ?? PasswordHash.make(password)
        cachedHash = hash
        let api = WebAPI(.init(passwordHash: hash, token: token, root: root, recordings: WebRecordings(folder: recordings)))
        api.sessions = sessions
        var settings = WebServer.Settings(port: 0)
        settings.plainHTTP = plainHTTP
        if !plainHTTP { settings.certificate = try TestCertificate.make() }
        configure(&settings)
        return try WebServer(settings: settings, api: api)
    }
}
