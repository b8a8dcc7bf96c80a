import C1nkGLibBase
import XCTest

final class HTTPRangeTests: XCTestCase {
    func testOneRangeOfBytesIsResolvedAgainstTheSize() {
        XCTAssertEqual(HTTPRange.resolve(nil, size: 100), .whole)
        XCTAssertEqual(HTTPRange.resolve("bytes=0-9", size: 100), .part(first: 0, last: 9))
        XCTAssertEqual(HTTPRange.resolve("bytes=90-", size: 100), .part(first: 90, last: 99))
        XCTAssertEqual(HTTPRange.resolve("bytes=90-500", size: 100), .part(first: 90, last: 99), "the end clipped to the file")
        XCTAssertEqual(HTTPRange.resolve("bytes=-10", size: 100), .part(first: 90, last: 99), "the last ten")
        XCTAssertEqual(HTTPRange.resolve("bytes=-500", size: 100), .part(first: 0, last: 99))
        XCTAssertEqual(HTTPRange.resolve("bytes=100-", size: 100), .unsatisfiable)
        XCTAssertEqual(HTTPRange.resolve("bytes=-0", size: 100), .unsatisfiable)
        XCTAssertEqual(HTTPRange.resolve("bytes=0-", size: 0), .unsatisfiable)
    }

    func testWhatIsNotOneRangeOfBytesGivesTheWholeFile() {
        for header in ["bytes=0-1,5-6", "items=0-9", "bytes=9-0", "bytes=a-b", "bytes=", "bytes=--5", "0-9"] {
            XCTAssertEqual(HTTPRange.resolve(header, size: 100), .whole, header)
        }
    }
}
