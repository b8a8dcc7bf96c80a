import Foundation
import XCTest

/// The local signaling server is a router with sockets: it must not drag
/// GStreamer in (its layers stand on C1nkGLibBase, the bridge's
/// GStreamer-free half), and without GStreamer it still logs as GST_DEBUG says.
final class ServerLinkTests: XCTestCase {
    private let server = AnswerCommandTests.binaries.appendingPathComponent("c1nk-gst-server").path

    func testTheServerLinksNoGStreamer() throws {
        let ldd = Process()
        ldd.executableURL = URL(fileURLWithPath: "/usr/bin/ldd")
        ldd.arguments = [server]
        let output = Pipe()
        ldd.standardOutput = output
        try ldd.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        ldd.waitUntilExit()
        XCTAssertEqual(ldd.terminationStatus, 0, text)
        XCTAssertTrue(text.contains("libglib-2.0"), text)
        XCTAssertFalse(text.contains("libgst"), "c1nk-gst-server links GStreamer:\n\(text)")
    }

    func testTheServerStillLogsItsCategoryFromGSTDEBUG() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: server)
        process.arguments = ["--port", "0"]
        var environment = ProcessInfo.processInfo.environment
        environment["GST_DEBUG"] = "c1nk-server:5"
        process.environment = environment
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = Pipe()
        try process.run()
        defer { if process.isRunning { process.terminate() }; process.waitUntilExit() }
        // The first line of ours on stderr is enough; read until one arrives.
        var text = ""
        let handle = errors.fileHandleForReading
        let deadline = Date().addingTimeInterval(10)
        while !text.contains("c1nk-server"), Date() < deadline {
            let chunk = handle.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        XCTAssertTrue(text.contains(" c1nk-server "), text)
        XCTAssertTrue(text.contains("DEBUG") || text.contains("INFO"), text)
    }
}
