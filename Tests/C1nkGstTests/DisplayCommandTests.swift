import Foundation
import XCTest


/// The display's options of `c1nk-gst-answer`, run as a user runs them.
final class DisplayCommandTests: XCTestCase {
    func run(_ arguments: [String]) throws -> (status: Int32?, out: String, err: String) {
        let command = try AnswerCommandTests.Command("c1nk-gst-answer", arguments)
        let status = command.wait()
        return (status, command.stdout, command.stderr)
    }

    func testBadDisplayOptionsAreUsageErrors() throws {
        for (arguments, message) in [
            (["--display-size", "10x10"], "--display-size takes WIDTHxHEIGHT in pixels such as 1280x800 or 800x480, not '10x10'"),
            (["--screens", "maybe"], "--screens takes one of on, off, auto, not 'maybe'"),
            (["--building", " "], "--building needs"),
        ] {
            let result = try run(arguments)
            XCTAssertEqual(result.status, 2, "\(arguments)")
            XCTAssertTrue(result.err.contains(message), "\(arguments): \(result.err)")
        }
    }

    func testAnInputThatCannotOpenStopsTheStartWithTheReason() throws {
        let directory = temporaryDirectory()
        let result = try run(["--server", "ws://127.0.0.1:1/ws", "--sink", "fakesink", "--input", directory + "/no-such-device",
                              "--device-id-file", directory + "/id"])
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.err.contains("--input: cannot open \(directory)/no-such-device: No such file or directory."), result.err)
    }

    func testHistoryPrintsRingsAndSkipsACorruptLine() throws {
        let state = temporaryDirectory()
        try FileManager.default.createDirectory(atPath: state + "/c1nk", withIntermediateDirectories: true)
        let t = Int64(Date().timeIntervalSince1970 * 1000) - 60_000
        try "{\"door\":\"Hlavný vchod\",\"outcome\":\"answered\",\"t\":\(t)}\n{broken\n".write(toFile: state + "/c1nk/history.jsonl", atomically: true, encoding: .utf8)
        setenv("XDG_STATE_HOME", state, 1)
        defer { unsetenv("XDG_STATE_HOME") }
        // A minute ago is yesterday just after midnight: the day as it was
        // before and after the command ran.
        let ring = Date(timeIntervalSince1970: Double(t) / 1000)
        let todayBefore = Calendar.current.isDateInToday(ring)
        let result = try run(["--history"])
        let todayAfter = Calendar.current.isDateInToday(ring)
        XCTAssertEqual(result.status, 0)
        let prefixes = Set([todayBefore, todayAfter].map { $0 ? "Dnes " : "Včera " })
        XCTAssertTrue(prefixes.contains { result.out.hasPrefix($0) }, result.out)
        XCTAssertTrue(result.out.contains("Hlavný vchod · prijaté"), result.out)
        XCTAssertTrue(result.err.contains("history.jsonl:2: skipped a ring history line that is not valid"), result.err)
    }
}
