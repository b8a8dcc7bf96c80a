import Foundation
import XCTest
@testable import C1nkGLib
@testable import C1nkGLibBase
@testable import C1nkSIP

/// The agent library is loaded apart (RTLD_LOCAL): sofia-sip exports STUN functions
/// under libnice's names, and were they in the process's global scope, libnice's
/// ICE would call sofia's and every webrtcbin call would fail.
extension SIPTests {
    func testTheAgentLibraryLeavesLibnicesNamesToLibnice() throws {
        _ = try startAgent()
        let path = try XCTUnwrap(SIPAgentLibrary.loadedPath)
        XCTAssertTrue(path.hasSuffix("libc1nksipagent.so"), path)
        // ICE's own element, so libnice is in the process too.
        XCTAssertNotNil(Element.make("nicesrc"), "libnice's GStreamer plug-in (gstreamer1.0-nice)")
        for name in ["stun_message_length", "stun_message_find", "stun_agent_init"] {
            guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), name) else { continue }   // RTLD_DEFAULT
            let file = mappedFile(holding: UInt(bitPattern: symbol))
            XCTAssertNotEqual(file, "?", "\(name) found in no mapped file")
            XCTAssertFalse(file.contains("sofia"), "\(name) resolves to \(file): libnice would call sofia-sip's")
        }
    }


    /// The file mapped at `address`, from /proc/self/maps ("?" when none is).
    private func mappedFile(holding address: UInt) -> String {
        // Read, not stat-sized: /proc files say they are empty.
        let maps = String(decoding: readFile(atPath: "/proc/self/maps") ?? [], as: UTF8.self)
        for line in maps.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            let range = fields.first?.split(separator: "-") ?? []
            guard fields.count >= 6, range.count == 2, let low = UInt(range[0], radix: 16), let high = UInt(range[1], radix: 16),
                  (low..<high).contains(address) else { continue }
            return String(fields[5])
        }
        return "?"
    }
}
