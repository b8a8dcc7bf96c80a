import Foundation
import Glibc
import XCTest
@testable import C1nkGLib
@testable import C1nkLocal
@testable import C1nkWeb

/// `c1nk-gst-answer --record 'DIR/%Y/%m/{callId}.mkv' --web-port`: the
/// recordings of the dated folders are listed by their path below `DIR`,
/// downloaded with `Range`, and nothing else is: no `..`, no absolute path,
/// no symbolic link out, no hidden file, no file at another depth.
final class WebRecordingFolderTests: XCTestCase {
    func testRecordingsInDatedFoldersAreListedAndServedAndNothingElse() throws {
        Log.echoToStandardError = false
        defer { Log.echoToStandardError = true }
        let server = try SignalServer()
        defer { server.stop() }
        let base = temporaryDirectory()
        let root = base + "/recordings"
        let fm = FileManager.default
        try fm.createDirectory(atPath: root + "/2026/12", withIntermediateDirectories: true)
        try fm.createDirectory(atPath: root + "/2025/01", withIntermediateDirectories: true)
        let content = Data((0..<4096).map { UInt8($0 % 251) })
        XCTAssertTrue(fm.createFile(atPath: root + "/2026/12/abc.mkv", contents: content))
        XCTAssertTrue(fm.createFile(atPath: root + "/2025/01/old-call.mp4", contents: Data("old".utf8)))
        var old = [timeval(tv_sec: 1_736_000_000, tv_usec: 0), timeval(tv_sec: 1_736_000_000, tv_usec: 0)]
        XCTAssertEqual(utimes(root + "/2025/01/old-call.mp4", &old), 0)
        // What must not be listed nor served.
        let outside = base + "/outside"
        try fm.createDirectory(atPath: outside, withIntermediateDirectories: true)
        XCTAssertTrue(fm.createFile(atPath: outside + "/secret.mkv", contents: Data("the secret inside".utf8)))
        try fm.createSymbolicLink(atPath: root + "/2026/12/link.mkv", withDestinationPath: outside + "/secret.mkv")
        try fm.createSymbolicLink(atPath: root + "/2026/away", withDestinationPath: outside)
        try fm.createDirectory(atPath: root + "/2026/away-too/x", withIntermediateDirectories: true)
        try fm.createSymbolicLink(atPath: root + "/2026/11", withDestinationPath: outside)
        XCTAssertTrue(fm.createFile(atPath: root + "/2026/12/.hidden.mkv", contents: content))
        XCTAssertTrue(fm.createFile(atPath: root + "/2026/top-level.mkv", contents: content))
        XCTAssertTrue(fm.createFile(atPath: root + "/2026/12/notes.txt", contents: content))

        let answerer = try WebCommandTests.startAnswerer(server: server, record: root + "/%Y/%m/{callId}.mkv")
        defer { answerer.command.signal(SIGTERM); _ = answerer.command.wait() }
        var browser = WebClient(port: answerer.port)
        XCTAssertEqual(browser.login(WebCommandTests.password).status, 200)

        let calls = browser.request("GET", "/api/calls")
        XCTAssertEqual(calls.status, 200, calls.body)
        let listed = try XCTUnwrap(calls.json["recordings"] as? [[String: Any]], calls.body)
        XCTAssertEqual(listed.compactMap { $0["name"] as? String }, ["2026/12/abc.mkv", "2025/01/old-call.mp4"], "newest first, by the path below the root")
        XCTAssertEqual(listed.first?["bytes"] as? Int, 4096)

        // As the page asks for it (each component encoded), and encoded whole.
        for path in ["/api/recordings/2026/12/abc.mkv", "/api/recordings/2026%2F12%2Fabc.mkv"] {
            let part = browser.request("GET", path, headers: ["Range: bytes=100-109"])
            XCTAssertEqual(part.status, 206, path)
            XCTAssertEqual(Array(part.body.utf8), Array(content[100..<110]), path)
            XCTAssertEqual(part.headers["content-range"], "bytes 100-109/4096", path)
            XCTAssertEqual(part.headers["accept-ranges"], "bytes", path)
            XCTAssertEqual(part.headers["content-length"], "10", path)
            XCTAssertEqual(part.headers["content-type"], "video/x-matroska", path)
            XCTAssertEqual(part.headers["content-disposition"], "inline; filename=\"abc.mkv\"", path)
        }
        let whole = browser.request("GET", "/api/recordings/2025/01/old-call.mp4")
        XCTAssertEqual(whole.status, 200)
        XCTAssertEqual(whole.body, "old")

        let refused = [
            "/api/recordings/2026/12/link.mkv", "/api/recordings/2026/away/secret.mkv", "/api/recordings/2026/11/secret.mkv",
            "/api/recordings/2026/12/.hidden.mkv", "/api/recordings/2026/top-level.mkv", "/api/recordings/2026/12/notes.txt",
            "/api/recordings/2026/12/none.mkv", "/api/recordings/abc.mkv",
            "/api/recordings/%2E%2E/%2E%2E/outside/secret.mkv", "/api/recordings/2026/../../outside/secret.mkv",
            "/api/recordings/" + outside.dropFirst() + "/secret.mkv",
            "/api/recordings/%2F" + outside.dropFirst().replacingOccurrences(of: "/", with: "%2F") + "%2Fsecret.mkv",
            "/api/recordings//" + outside.dropFirst() + "/secret.mkv",
            "/api/recordings/2026//12/abc.mkv",
        ]
        for path in refused {
            let reply = browser.request("GET", path, asIs: true)
            XCTAssertEqual(reply.status, 404, "\(path): \(reply.body.prefix(80))")
            XCTAssertFalse(reply.body.contains("the secret inside"), path)
        }
        // libsoup refuses these itself (400) before they reach the page's routes.
        for path in ["/api/recordings/..%2Foutside%2Fsecret.mkv", "/api/recordings/2026/..%2F..%2F..%2Foutside%2Fsecret.mkv",
                     "/api/recordings/2026/12/..%2F12%2Fabc.mkv", "/api/recordings/2026/12/abc.mkv%00"] {
            let reply = browser.request("GET", path, asIs: true)
            XCTAssertTrue([400, 404].contains(reply.status), "\(path): \(reply.status)")
            XCTAssertFalse(reply.body.contains("the secret inside"), path)
        }
        // And the names themselves, as they would come decoded.
        for name in ["../outside/secret.mkv", "2026/../../outside/secret.mkv", "2026/12/../12/abc.mkv", outside + "/secret.mkv",
                     "/2026/12/abc.mkv", "2026/12/abc.mkv\0", "2026/12/link.mkv", "2026/11/secret.mkv", "2026/12/.hidden.mkv"] {
            XCTAssertNil(WebRecordings.resolve(name, root: root, depth: 2), name)
        }
        XCTAssertEqual(WebRecordings.resolve("2026/12/abc.mkv", root: root, depth: 2), root + "/2026/12/abc.mkv")
        var stranger = WebClient(port: answerer.port)
        stranger.cookie = "not-a-session"
        XCTAssertEqual(stranger.request("GET", "/api/recordings/2026/12/abc.mkv").status, 401, "not without logging in")
        XCTAssertTrue(answerer.command.process.isRunning, answerer.command.stderr)
    }
}
