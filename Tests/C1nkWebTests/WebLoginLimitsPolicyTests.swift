import C1nkGLibBase
import XCTest
@testable import C1nkWeb

final class WebLoginLimitsPolicyTests: XCTestCase {
    func testAnAddressIsLimitedAfterItsFailuresAndASuccessTakesItsTryBack() {
        var limits = LoginLimits(perAddress: 3, global: 10, window: 60)
        for second in 0..<3 {
            XCTAssertEqual(limits.check("10.0.0.2", now: Double(second)), .allowed)
            limits.begin("10.0.0.2", now: Double(second))
        }
        XCTAssertEqual(limits.check("10.0.0.2", now: 3), .limited(retryAfter: 57, global: false))
        XCTAssertEqual(limits.check("10.0.0.3", now: 3), .allowed)
        limits.begin("10.0.0.3", now: 3)
        limits.succeeded("10.0.0.3", started: 3)
        XCTAssertEqual(limits.globalFailures(now: 3), 3, "a success is not a failure")
        XCTAssertEqual(limits.check("10.0.0.2", now: 60.5), .allowed, "the oldest failure left the window")
    }

    func testTheGlobalLimitHoldsEveryAddressThatFailedButNeverANewOne() {
        var limits = LoginLimits(perAddress: 5, global: 4, window: 60)
        for peer in ["a", "b", "c", "d"] { limits.begin(peer, now: 1) }
        XCTAssertEqual(limits.check("a", now: 2), .limited(retryAfter: 59, global: true))
        XCTAssertEqual(limits.check("new", now: 2), .allowed, "an address that never failed may try")
        limits.begin("new", now: 2)
        XCTAssertEqual(limits.check("new", now: 2), .limited(retryAfter: 59, global: true), "its try in flight counts")
        XCTAssertEqual(limits.check("a", now: 61.5), .allowed, "the window passed")
    }

    func testTheVerifierRefusesBeyondItsCapacityUnhashedAndAnswersOnTheMainContext() throws {
        let hash = try PasswordHash.make("correct horse")
        let verifier = PasswordVerifier(capacity: 2)
        var results: [Bool] = []
        XCTAssertTrue(verifier.verify("correct horse", hash: hash) { results.append($0) })
        XCTAssertTrue(verifier.verify("wrong", hash: hash) { results.append($0) })
        XCTAssertFalse(verifier.verify("correct horse", hash: hash) { _ in XCTFail("refused: never answered") })
        XCTAssertEqual(verifier.refused, 1)
        XCTAssertTrue(results.isEmpty, "answered later, on the main context")
        XCTAssertTrue(MainContext.run(timeout: 10) { results.count == 2 })
        XCTAssertEqual(results, [true, false], "in order")
        XCTAssertEqual(verifier.pending, 0)
        XCTAssertTrue(verifier.verify("correct horse", hash: hash) { results.append($0) }, "room again")
        XCTAssertTrue(MainContext.run(timeout: 10) { results.count == 3 })
    }
}

final class WebSessionsExpiryTests: XCTestCase {
    func testExpiryIsTheEarlierOfIdleAndLifetimeAndUseMovesIt() {
        var sessions = WebSessions(idle: 10, lifetime: 25)
        let session = sessions.create(now: 0)
        XCTAssertEqual(sessions.expiry(session.token), 10)
        XCTAssertTrue(sessions.isAlive(session.token, now: 9.9))
        XCTAssertFalse(sessions.isAlive(session.token, now: 10))
        _ = sessions.use(session.token, now: 9)
        XCTAssertEqual(sessions.expiry(session.token), 19)
        _ = sessions.use(session.token, now: 18)
        XCTAssertEqual(sessions.expiry(session.token), 25, "never past its lifetime")
        sessions.remove(session.token)
        XCTAssertNil(sessions.expiry(session.token))
    }
}
