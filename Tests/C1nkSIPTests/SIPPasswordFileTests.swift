import C1nkSIP
import Foundation
import XCTest

final class SIPPasswordFileTests: XCTestCase {
    private var directory = ""

    override func setUpWithError() throws {
        directory = NSTemporaryDirectory() + "c1nk-sip-password-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    override func tearDown() {
        try? FileManager.default.removeItem(atPath: directory)
    }

    private func file(_ text: String, mode: Int) throws -> String {
        let path = directory + "/password"
        try? FileManager.default.removeItem(atPath: path)
        try text.write(toFile: path, atomically: false, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
        return path
    }

    func testTheFirstLineOfAnOwnerOnlyFile() throws {
        XCTAssertEqual(try SIPPasswordFile.read(try file("s3cret: with spaces\nignored\n", mode: 0o600)), "s3cret: with spaces")
        XCTAssertEqual(try SIPPasswordFile.read(try file("crlf\r\n", mode: 0o400)), "crlf")
    }

    func testRefusalsSayWhatToDo() throws {
        func reason(_ path: String) -> String {
            do { _ = try SIPPasswordFile.read(path); return "read" } catch { return "\(error)" }
        }
        XCTAssertTrue(reason(try file("pw\n", mode: 0o644)).contains("chmod 600"))
        XCTAssertTrue(reason(try file("\n", mode: 0o600)).contains("is empty"))
        XCTAssertTrue(reason(directory + "/missing").contains("pass --sip-password-file"))
        XCTAssertTrue(reason(directory).contains("not a regular file"))
    }
}
