import Foundation
import XCTest

/// The screens' drawing libraries are opened at run time: when one is
/// missing, doctor and the answerer say which and what to install.
final class ScreenLibrariesMissingTests: XCTestCase {
    func testAMissingPangoCairoIsNamedWithWhatToInstall() throws {
        guard getuid() == 0 else { throw XCTSkip("hiding a library takes a mount namespace (root)") }
        let library = try XCTUnwrap(Self.path(of: "libpangocairo-1.0.so.0"), "libpangocairo is installed")
        let empty = temporaryDirectory() + "/empty.so"
        FileManager.default.createFile(atPath: empty, contents: nil)
        let answerer = AnswerCommandTests.binaries.appendingPathComponent("c1nk-gst-answer").path

        let doctor = try hidden(library, behind: empty, run: [answerer, "doctor", "--screens", "on", "--sink", "fakesink"])
        XCTAssertTrue(doctor.contains("✘ the screens draw with cairo, Pango and gdk-pixbuf"), doctor)
        XCTAssertTrue(doctor.contains("libpangocairo-1.0.so.0"), doctor)
        XCTAssertTrue(doctor.contains("fix: apt-get install libpangocairo-1.0-0 libgdk-pixbuf-2.0-0, or --screens off"), doctor)

        let answer = try hidden(library, behind: empty, run: [
            answerer, "--screens", "on", "--sink", "fakesink", "--server", "ws://127.0.0.1:1/ws",
            "--device-id-file", temporaryDirectory() + "/device-id"])
        XCTAssertTrue(answer.contains("the screens draw with cairo, Pango and gdk-pixbuf"), answer)
        XCTAssertTrue(answer.contains("sudo apt install libpangocairo-1.0-0"), answer)
    }

    /// Runs `command` where `library` reads as `empty` (a private mount namespace); its output.
    private func hidden(_ library: String, behind empty: String, run command: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
        process.arguments = ["-m", "sh", "-c", #"mount --bind "$1" "$2" || exit 99; shift 2; exec "$@""#, "sh", empty, library] + command
        process.environment = ProcessInfo.processInfo.environment.merging(
            ["C1NK_SYSTEM_CONFIG": "/nonexistent/answer.conf", "XDG_CONFIG_HOME": temporaryDirectory()]) { $1 }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        if process.terminationStatus == 99 { throw XCTSkip("no mount namespace here: \(text)") }
        return text
    }

    /// Where the dynamic loader finds `soname` (ldconfig's cache).
    private static func path(of soname: String) -> String? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/sbin/ldconfig")
        process.arguments = ["-p"]
        let output = Pipe()
        process.standardOutput = output
        guard (try? process.run()) != nil else { return nil }
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return text.split(separator: "\n").first { $0.contains(soname + " (") }
            .flatMap { $0.components(separatedBy: " => ").last }
    }
}
