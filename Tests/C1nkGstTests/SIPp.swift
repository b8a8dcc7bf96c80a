import Foundation
import Glibc
import XCTest
@testable import C1nkGLib

/// SIPp (sip-tester) running one scenario (`SIPpScenario`) on loopback, for
/// one test: run to its end by the test, killed by its process id if it overruns.
final class SIPp {
    static let binary = "/usr/bin/sipp"

    let directory: String
    private(set) var process: Process?
    var output: String { (try? String(contentsOfFile: directory + "/sipp.log", encoding: .utf8)) ?? "" }
    var errors: String { (try? String(contentsOfFile: directory + "/errors.log", encoding: .utf8)) ?? "" }

    struct Missing: Error, CustomStringConvertible {
        let description = "SIPp is not installed: install sip-tester (scripts/install-deps)"
    }

    /// Runs `scenario` `calls` times at `rate` per second from 127.0.0.1:`port` (0: any),
    /// against `target` ("127.0.0.1:5060"), or waiting for calls when `target` is nil.
    init(_ scenario: String, calls: Int, rate: Int = 10, port: Int = 0, target: String? = nil) throws {
        guard FileManager.default.isExecutableFile(atPath: Self.binary) else { throw Missing() }
        directory = temporaryDirectory()
        try scenario.write(toFile: directory + "/scenario.xml", atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.binary)
        process.arguments = ["-sf", directory + "/scenario.xml", "-m", String(calls), "-r", String(rate),
                             "-i", "127.0.0.1", "-p", String(port), "-t", "u1", "-nostdin", "-timeout", "30s", "-timeout_error",
                             "-trace_err", "-error_file", directory + "/errors.log"] + (target.map { [$0] } ?? [])
        _ = FileManager.default.createFile(atPath: directory + "/sipp.log", contents: nil)
        process.standardOutput = FileHandle(forWritingAtPath: directory + "/sipp.log")
        process.standardError = FileHandle(forWritingAtPath: directory + "/sipp.log")
        process.standardInput = FileHandle.nullDevice
        try process.run()
        self.process = process
    }

    /// Waits until SIPp holds UDP `port` on 127.0.0.1 (a bind of ours there fails), or it exits.
    func waitUntilListening(on port: Int, timeout: Double = 15) -> Bool {
        guard let process else { return false }
        return MainContext.run(timeout: timeout) { !process.isRunning || !Self.canBind(port) } && process.isRunning
    }

    private static func canBind(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0
    }

    /// Waits (iterating the main context, where the bridge answers) until SIPp exits; its exit status.
    func wait(timeout: Double) -> Int32? {
        guard let process else { return nil }
        guard MainContext.run(timeout: timeout, until: { !process.isRunning }) else { return nil }
        return process.terminationStatus
    }

    func stop() {
        guard let process else { return }
        self.process = nil
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(atPath: directory)
    }
}
