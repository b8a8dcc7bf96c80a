import Foundation
import Glibc
import XCTest
@testable import C1nkGLib
@testable import C1nkWeb

/// The login's limits against a guesser on the LAN, over real HTTPS (curl),
/// each peer a loopback address of its own (127.0.0.N); and the hashing off
/// the main context, measured as the lateness of a 10 ms timer while 50
/// logins a second arrive.
final class WebLoginLimitsTests: XCTestCase {
    override func setUp() { Log.echoToStandardError = false }
    override func tearDown() { Log.echoToStandardError = true }

    func testAGuesserFromOneAddressIsLimitedButTheRightPasswordFromAnotherLogsIn() throws {
        let server = try WebTestServer.make()
        defer { server.stop() }
        var guesser = WebClient(port: server.port, from: "127.0.0.2")
        for _ in 0..<5 { XCTAssertEqual(guesser.login("wrong").status, 401) }
        let limited = guesser.login(WebTestServer.password)
        XCTAssertEqual(limited.status, 429, "the guesser's address is limited, for the right password too")
        XCTAssertNotNil(limited.headers["retry-after"])
        XCTAssertNil(guesser.cookie)
        var resident = WebClient(port: server.port, from: "127.0.0.3")
        XCTAssertEqual(resident.login(WebTestServer.password).status, 200, "another address logs in")
        XCTAssertEqual(resident.request("GET", "/api/state").status, 200)
    }

    func testTheGlobalLimitHoldsWithManyAddressesButNotForANewOne() throws {
        let server = try WebTestServer.make()
        defer { server.stop() }
        let limit = server.api.limits.global
        XCTAssertEqual(limit, 20)
        // Ten addresses, two wrong passwords each: under the limit of one address, at the limit of all.
        for round in 0..<2 {
            for n in 2...11 {
                var guesser = WebClient(port: server.port, from: "127.0.0.\(n)")
                XCTAssertEqual(guesser.login("wrong \(round)").status, 401, "127.0.0.\(n)")
            }
        }
        for n in [2, 7, 11] {
            var guesser = WebClient(port: server.port, from: "127.0.0.\(n)")
            XCTAssertEqual(guesser.login(WebTestServer.password).status, 429, "127.0.0.\(n) failed before: the limit of all holds it")
        }
        var resident = WebClient(port: server.port, from: "127.0.0.12")
        XCTAssertEqual(resident.login(WebTestServer.password).status, 200, "an address that never failed still logs in")
        var newcomer = WebClient(port: server.port, from: "127.0.0.13")
        XCTAssertEqual(newcomer.login("wrong").status, 401, "a new address gets its try")
        XCTAssertEqual(newcomer.login(WebTestServer.password).status, 429, "and after its failure is held too")
    }

    /// Behind the plain-HTTP proxy every browser is 127.0.0.1: the limits
    /// take the address the proxy forwards; over HTTPS that header is not believed.
    func testBehindTheProxyTheForwardedAddressIsLimitedNotEveryone() throws {
        let proxied = try WebTestServer.make(plainHTTP: true)
        defer { proxied.stop() }
        var guesser = WebClient(port: proxied.port, scheme: "http")
        for _ in 0..<5 {
            XCTAssertEqual(guesser.request("POST", "/api/login", json: ["password": "wrong"], headers: ["X-Forwarded-For: 192.0.2.9"]).status, 401)
        }
        XCTAssertEqual(guesser.request("POST", "/api/login", json: ["password": WebTestServer.password],
                                       headers: ["X-Forwarded-For: 192.0.2.9"]).status, 429)
        var resident = WebClient(port: proxied.port, scheme: "http")
        XCTAssertEqual(resident.request("POST", "/api/login", json: ["password": WebTestServer.password],
                                        headers: ["X-Forwarded-For: 203.0.113.1, 192.0.2.10"]).status, 200, "the proxy's last entry counts")

        let secure = try WebTestServer.make()
        defer { secure.stop() }
        var liar = WebClient(port: secure.port, from: "127.0.0.2")
        for n in 0..<5 {
            XCTAssertEqual(liar.request("POST", "/api/login", json: ["password": "wrong"], headers: ["X-Forwarded-For: 192.0.2.\(n)"]).status, 401)
        }
        XCTAssertEqual(liar.request("POST", "/api/login", json: ["password": "wrong"], headers: ["X-Forwarded-For: 192.0.2.99"]).status, 429,
                       "over HTTPS the header changes nothing")
    }

    func testWrongBearerTokensAreLimitedPerAddress() throws {
        let token = "0123456789abcdef0123456789abcdef"
        let server = try WebTestServer.make(token: token)
        defer { server.stop() }
        var guesser = WebClient(port: server.port, from: "127.0.0.2")
        guesser.token = "ffffffffffffffffffffffffffffffff"
        for _ in 0..<5 { XCTAssertEqual(guesser.request("GET", "/api/state").status, 401) }
        guesser.token = token
        XCTAssertEqual(guesser.request("GET", "/api/state").status, 429, "the address is limited, the right token too")
        var script = WebClient(port: server.port, from: "127.0.0.3")
        script.token = token
        XCTAssertEqual(script.request("GET", "/api/state").status, 200)
    }

    /// 50 logins a second (each one hashed) while a 10 ms timer ticks: the
    /// main context is never held by a hash (~12 ms each here).
    func testHashingDoesNotStallTheMainContext() throws {
        let server = try WebTestServer.make(plainHTTP: true)
        defer { server.stop() }
        let port = server.port
        let statuses = StatusList()
        let lateness = MainLoopLateness(interval: 0.01)
        let client = Thread {
            let body = "{\"password\":\"\(WebTestServer.password)\"}"
            let start = MainContext.monotonicSeconds()
            for index in 0..<150 {
                statuses.append(RawHTTP.status(port: port, request: "POST /api/login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                                               + "Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n" + body))
                let next = start + Double(index + 1) * 0.02
                let wait = next - MainContext.monotonicSeconds()
                if wait > 0 { usleep(useconds_t(wait * 1_000_000)) }
            }
            statuses.finish()
        }
        client.start()
        XCTAssertTrue(MainContext.run(timeout: 60) { statuses.finished })
        lateness.stop()
        let all = statuses.values
        let hashed = all.filter { $0 == 200 }.count
        print(String(format: "web logins: %d of %d hashed (200), %d refused unhashed (429); 10 ms timer late p99 %.1f ms, max %.1f ms over %d ticks",
                     hashed, all.count, all.filter { $0 == 429 }.count, lateness.percentile(0.99) * 1000, lateness.maximum * 1000, lateness.samples.count))
        XCTAssertGreaterThan(hashed, 100, "\(all)")
        XCTAssertGreaterThan(lateness.samples.count, 100)
        XCTAssertLessThanOrEqual(lateness.percentile(0.99), 0.010)
        XCTAssertLessThanOrEqual(lateness.maximum, 0.050)
    }
}

/// Statuses appended by a client thread, read on the main thread.
final class StatusList: @unchecked Sendable {
    private let lock = NSLock()
    private var list: [Int] = []
    private var done = false
    func append(_ status: Int) { lock.lock(); list.append(status); lock.unlock() }
    func finish() { lock.lock(); done = true; lock.unlock() }
    var finished: Bool { lock.lock(); defer { lock.unlock() }; return done }
    var values: [Int] { lock.lock(); defer { lock.unlock() }; return list }
}

/// One HTTP/1.1 exchange over a blocking socket, from any thread: the status, or 0.
enum RawHTTP {
    static func connect(port: UInt16, from: String = "127.0.0.1") -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var timeout = timeval(tv_sec: 20, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        local.sin_addr.s_addr = inet_addr(from)
        _ = withUnsafePointer(to: &local) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        if connected != 0 { close(fd); return -1 }
        return fd
    }

    static func status(port: UInt16, request: String) -> Int {
        let fd = connect(port: port)
        guard fd >= 0 else { return 0 }
        defer { close(fd) }
        let bytes = Array(request.utf8)
        guard bytes.withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == bytes.count else { return 0 }
        var reply = [UInt8](repeating: 0, count: 4096)
        let count = reply.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        guard count > 12 else { return 0 }
        let line = String(decoding: reply[0..<count], as: UTF8.self)
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }
}
