import C1nkCall
import C1nkGLibBase
@testable import C1nkWeb
import XCTest

/// The web page's pure decisions: rate limit, sessions, paths, credentials, body limits.
final class WebPolicyTests: XCTestCase {
    func testRateLimiterRefusesAfterTheLimitUntilTheWindowPasses() {
        var limiter = LoginRateLimiter(limit: 3, window: 60)
        for second in 0..<3 {
            XCTAssertNil(limiter.retryAfter("10.0.0.2", now: Double(second)))
            limiter.failed("10.0.0.2", now: Double(second))
        }
        XCTAssertEqual(limiter.retryAfter("10.0.0.2", now: 3), 57)
        XCTAssertNil(limiter.retryAfter("10.0.0.3", now: 3), "another peer is not limited")
        XCTAssertNil(limiter.retryAfter("10.0.0.2", now: 60.5), "the oldest failure left the window")
        limiter.failed("10.0.0.2", now: 61)
        XCTAssertNil(limiter.retryAfter("10.0.0.2", now: 61), "two failures in the window")
        limiter.failed("10.0.0.2", now: 61)
        XCTAssertNotNil(limiter.retryAfter("10.0.0.2", now: 61))
        limiter.succeeded("10.0.0.2")
        XCTAssertNil(limiter.retryAfter("10.0.0.2", now: 61))
    }

    func testRateLimiterForgetsTheOldestPeersBeyondItsSize() {
        var limiter = LoginRateLimiter(limit: 1, window: 60, peers: 2)
        for peer in ["a", "b", "c"] { limiter.failed(peer, now: 0) }
        XCTAssertNil(limiter.retryAfter("a", now: 1))
        XCTAssertNotNil(limiter.retryAfter("c", now: 1))
    }

    func testSessionsExpireWhenIdleAndAreBounded() {
        var counter: UInt64 = 0
        var sessions = WebSessions(idle: 100, lifetime: 1000, limit: 2, random: { counter += 1; return counter })
        let first = sessions.create(now: 0)
        XCTAssertEqual(first.token.count, 64)
        XCTAssertNotEqual(first.token, first.csrf)
        XCTAssertEqual(sessions.use(first.token, now: 99)?.csrf, first.csrf)
        XCTAssertNil(sessions.use("nope", now: 99))
        XCTAssertNotNil(sessions.use(first.token, now: 198), "using it kept it alive")
        XCTAssertNil(sessions.use(first.token, now: 400), "idle too long")
        let a = sessions.create(now: 500), b = sessions.create(now: 501), c = sessions.create(now: 502)
        XCTAssertEqual(sessions.count, 2)
        XCTAssertNil(sessions.use(a.token, now: 503), "the least recently used went")
        XCTAssertNotNil(sessions.use(b.token, now: 503))
        XCTAssertNotNil(sessions.use(c.token, now: 503))
        var long = WebSessions(idle: 100, lifetime: 250)
        let s = long.create(now: 0)
        for t in stride(from: 50.0, through: 200, by: 50) { XCTAssertNotNil(long.use(s.token, now: t)) }
        XCTAssertNil(long.use(s.token, now: 260), "past its lifetime however used")
    }

    func testPathsStayBelowTheRoot() {
        XCTAssertEqual(WebPath.resolve("/"), "index.html")
        XCTAssertEqual(WebPath.resolve("/app.js"), "app.js")
        XCTAssertEqual(WebPath.resolve("/img/door%20bell.svg"), "img/door bell.svg")
        for bad in ["/../etc/passwd", "/a/../../x", "/%2e%2e/etc/passwd", "/%2E%2E%2Fetc%2Fpasswd", "/.hidden", "/a//b",
                    "/a%00.js", "/a\\..\\b", "/%zz", "relative", "/a/./b", "/%C0%AE%C0%AE/x"] {
            XCTAssertNil(WebPath.resolve(bad), bad)
        }
    }

    func testCredentialsAreReadFromCookieAndAuthorization() {
        let c = WebCredentials(cookie: "a=1; c1nk_session=abc ; b=2", authorization: "Bearer  tok ", csrf: "x")
        XCTAssertEqual(c.session, "abc")
        XCTAssertEqual(c.bearer, "tok")
        XCTAssertNil(WebCredentials(cookie: "c1nk_session=", authorization: "Basic Zm9v", csrf: nil).session)
        XCTAssertNil(WebCredentials(cookie: nil, authorization: "Basic Zm9v", csrf: nil).bearer)
        let cookie = WebCredentials.setCookie("t", maxAge: 10)
        for part in ["HttpOnly", "Secure", "SameSite=Strict", "Path=/"] { XCTAssertTrue(cookie.contains(part), part) }
        XCTAssertTrue(constantTimeEqual("abc", "abc"))
        XCTAssertFalse(constantTimeEqual("abc", "abd"))
        XCTAssertFalse(constantTimeEqual("abc", "abcd"))
    }

    func testBodiesAboveTheLimitOrWithoutALengthAreRefused() {
        XCTAssertNil(HTTPBodyLimit.refusal(.none, maximum: 100))
        XCTAssertNil(HTTPBodyLimit.refusal(.known(100), maximum: 100))
        XCTAssertEqual(HTTPBodyLimit.refusal(.known(10 * 1024 * 1024), maximum: 100), 413)
        XCTAssertEqual(HTTPBodyLimit.refusal(.unknown, maximum: 100), 411)
        XCTAssertNil(HTTPBodyLimit.refusal(.chunked, maximum: 100), "counted as it comes")
        XCTAssertFalse(HTTPBodyLimit.chunkedOver(received: 100, maximum: 100))
        XCTAssertTrue(HTTPBodyLimit.chunkedOver(received: 101, maximum: 100))
        XCTAssertEqual(WebAPI.bodyLimit(method: "POST", path: "/api/login"), 4096)
        XCTAssertEqual(WebAPI.bodyLimit(method: "POST", path: "/api/whep"), 65536)
        XCTAssertEqual(WebAPI.bodyLimit(method: "GET", path: "/api/state"), 0, "no other route takes a body")
        XCTAssertEqual(WebAPI.bodyLimit(method: "PUT", path: "/api/login"), 0)
    }

    func testPasswordHashIsYescryptAndVerifies() throws {
        let hash = try PasswordHash.make("correct horse")
        XCTAssertTrue(hash.hasPrefix("$y$"), hash)
        XCTAssertNotEqual(hash, try PasswordHash.make("correct horse"), "a fresh salt each time")
        XCTAssertTrue(PasswordHash.verify("correct horse", hash: hash))
        XCTAssertFalse(PasswordHash.verify("correct hors", hash: hash))
        XCTAssertFalse(PasswordHash.verify("", hash: "plain"))
    }

    func testOneAcceptPerRingTheSecondIsAnsweredElsewhere() {
        var state = WebCallState()
        XCTAssertFalse(state.claimAccept(by: "a"), "nothing rings")
        state.apply(.ringing(callId: "c1", doorName: "Vchod"))
        XCTAssertEqual(state.json["door"] as? String, "Vchod")
        XCTAssertTrue(state.claimAccept(by: "a"))
        XCTAssertFalse(state.claimAccept(by: "b"))
        state.releaseAccept()
        XCTAssertTrue(state.claimAccept(by: "b"), "a refused accept frees the ring")
        state.apply(.accepted(callId: "c1"))
        XCTAssertEqual(state.phase, .call)
        XCTAssertFalse(state.claimAccept(by: "c"))
        state.apply(.doorOpened(callId: "c1"))
        XCTAssertEqual(state.json["doorOpened"] as? Bool, true)
        state.apply(.ended(callId: "c1", reason: .hangup, doorName: "Vchod"))
        XCTAssertEqual(state.phase, .idle)
        state.apply(.ringing(callId: "c2", doorName: "Dvor"))
        state.apply(.accepted(callId: "c2"))
        XCTAssertFalse(state.claimAccept(by: "a"), "accepted on the wall: the browser is told answered elsewhere")
    }

    func testRingsListTheDoorAndTimeNewestFirst() {
        var rings = WebRings(seed: [.init(t: 5, door: "Old", outcome: "answered")], limit: 3)
        rings.apply(.ringing(callId: "c1", doorName: "Vchod"), t: 10)
        rings.apply(.ended(callId: "c1", reason: .remote, doorName: "Vchod"), t: 20)
        rings.apply(.ringing(callId: "c2", doorName: "Dvor"), t: 30)
        rings.apply(.accepted(callId: "c2"), t: 31)
        rings.apply(.ringing(callId: "c3", doorName: "Vchod"), t: 40)
        XCTAssertEqual(rings.rings.map(\.door), ["Vchod", "Dvor", "Vchod"])
        XCTAssertEqual(rings.rings.map(\.outcome), ["ringing", "answered", "missed"])
    }
}
