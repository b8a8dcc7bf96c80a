import Foundation
import Glibc
import XCTest
@testable import C1nkDoor
@testable import C1nkGLib
@testable import C1nkLocal

/// The plain pipeline: `c1nkdoorbin`'s video converted, cropped to
/// the door's top 16 rows in GRAY8 and written to a TCP socket, the mic fed,
/// the audio to a fakesink; two calls each run. Every call's frames must
/// reach the socket (not only the black frames between calls).
final class PluginPlainPipelineTests: XCTestCase {
    func testThePlainPipelineDeliversEveryCallsFrames() throws {
        Log.echoToStandardError = false
        defer { Log.echoToStandardError = true }
        for run in 1...Int(ProcessInfo.processInfo.environment["C1NK_PLAIN_PIPELINE_RUNS"] ?? "2")! {
            try plainPipelineRun(run)
        }
    }

    private func plainPipelineRun(_ run: Int) throws {
        let (server, door) = try AnswerCommandTests.serverAndDoor { _ in }
        defer { door.stop(); server.stop() }
        let receiver = try BrightRows()
        defer { receiver.stop() }
        let directory = temporaryDirectory()
        let launch = try PluginTests.Tool("gst-launch-1.0", [
            "-m", "-e", "c1nkdoorbin", "name=d", "server=\(server.url)", "answer=auto", "ice-local-ip=127.0.0.1", "stun-server=none",
            "device-id-file=\(directory)/id",
            "d.video", "!", "queue", "!", "videoconvert", "!", "videocrop", "bottom=464", "!", "video/x-raw,format=GRAY8", "!",
            "tcpclientsink", "host=127.0.0.1", "port=\(receiver.port)", "sync=false",
            "audiotestsrc", "is-live=true", "!", "d.mic", "d.audio", "!", "queue", "!", "fakesink"])
        defer { if launch.process.isRunning { launch.process.terminate() } }
        waitUntil("the element registered") { door.isReady && server.connectedAppIds.count == 1 }
        for call in 1...2 {
            let before = receiver.bright
            door.ring()
            waitUntil("run \(run), call \(call): the door's frames at the socket", timeout: 15) { receiver.bright >= before + 30 }
            door.hangup()
            waitUntil("run \(run), call \(call) ended", timeout: 15) { launch.messages("c1nk-event").filter { $0["event"] == "ended" }.count >= call }
        }
        launch.process.interrupt()
        XCTAssertEqual(launch.wait(timeout: 15), 0, launch.text)
    }
}

/// A TCP listener counting 10240-byte chunks (a 640x16 GRAY8 frame) brighter
/// than black: the door's picture, not the black frames between calls.
final class BrightRows: @unchecked Sendable {
    let port: UInt16
    private let listener: Int32
    private let lock = NSLock()
    private var count = 0
    var bright: Int { lock.lock(); defer { lock.unlock() }; return count }

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        listener = fd
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        guard bound == 0, listen(fd, 1) == 0 else { throw XCTSkip("cannot listen on 127.0.0.1") }
        port = UInt16(bigEndian: address.sin_port)
        Thread.detachNewThread { [self] in
            let connection = accept(fd, nil, nil)
            guard connection >= 0 else { return }
            defer { close(connection) }
            var chunk = [UInt8](), buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let read = recv(connection, &buffer, buffer.count, 0)
                if read <= 0 { return }
                chunk += buffer[0..<read]
                while chunk.count >= 10240 {
                    let frame = chunk[0..<10240]
                    let mean = stride(from: 0, to: 10240, by: 64).map { Int(frame[frame.startIndex + $0]) }.reduce(0, +) / 160
                    if mean > 30 { lock.lock(); count += 1; lock.unlock() }
                    chunk.removeFirst(10240)
                }
            }
        }
    }

    func stop() { shutdown(listener, Int32(SHUT_RDWR)); close(listener) }
}
