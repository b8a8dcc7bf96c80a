import C1nkGLibBase
import XCTest

final class HTTPConnectionTableTests: XCTestCase {
    let limits = HTTPConnectionTable.Limits(maximum: 4, perAddress: 2, headerTimeout: 10, idleTimeout: 30)

    func testCapsOnAllAndOnOneAddress() {
        var table = HTTPConnectionTable(limits: limits)
        XCTAssertNil(table.open(1, peer: "a", now: 0))
        XCTAssertNil(table.open(2, peer: "a", now: 0))
        XCTAssertEqual(table.open(3, peer: "a", now: 0), .address)
        XCTAssertNil(table.open(4, peer: "b", now: 0))
        XCTAssertNil(table.open(5, peer: "c", now: 0))
        XCTAssertEqual(table.open(6, peer: "d", now: 0), .full)
        table.closed(1)
        XCTAssertNil(table.open(7, peer: "a", now: 0), "room again")
        XCTAssertEqual(table.count, 4)
        XCTAssertEqual(table.count(from: "a"), 2)
    }

    func testDeadlinesForTheHandshakeHeadersBodyAndIdleButNoneWhileAnswering() {
        var table = HTTPConnectionTable(limits: limits)
        _ = table.open(1, peer: "a", now: 0)
        XCTAssertTrue(table.overdue(now: 9.9).isEmpty)
        XCTAssertEqual(table.overdue(now: 10).map(\.phase), [.headers], "no handshake or headers within 10 s")
        table.gotHeaders(1, now: 5)
        XCTAssertEqual(table.overdue(now: 15).map(\.phase), [.body])
        table.gotBody(1)
        XCTAssertTrue(table.overdue(now: 86_400).isEmpty, "an answer in progress (an event stream) is never timed out")
        XCTAssertEqual(table.phase(1), .answering)
        table.finished(1, now: 100)
        XCTAssertTrue(table.overdue(now: 129).isEmpty)
        XCTAssertEqual(table.overdue(now: 130).map(\.phase), [.idle], "idle 30 s between requests")
        table.requestStarted(1, now: 120)
        XCTAssertEqual(table.overdue(now: 130).map(\.phase), [.headers], "the next request's headers within 10 s of its first byte")
        table.closed(1)
        XCTAssertTrue(table.overdue(now: 1000).isEmpty)
    }
}
