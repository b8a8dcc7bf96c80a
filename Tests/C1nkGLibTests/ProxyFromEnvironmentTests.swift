import C1nkGLibBase
import CGLib
import Glibc
import XCTest

final class ProxyFromEnvironmentTests: XCTestCase {
    private func lookup(_ uri: String, in proxies: ProxyFromEnvironment) throws -> [String] {
        let resolver = try XCTUnwrap(proxies.resolver())
        defer { g_object_unref(gpointer(resolver)) }
        var error: UnsafeMutablePointer<GError>?
        guard let list = g_proxy_resolver_lookup(resolver, uri, nil, &error) else {
            throw GLibError.take(error)
        }
        defer { g_strfreev(list) }
        var result: [String] = []
        var index = 0
        while let entry = list[index] { result.append(String(cString: entry)); index += 1 }
        return result
    }

    func testEachSchemeGoesToItsProxyAndNoProxyHostsGoDirect() throws {
        let proxies = ProxyFromEnvironment([
            "http_proxy": "http://plain.proxy:3128", "HTTPS_PROXY": " tls.proxy:8080 ",
            "no_proxy": "localhost, 127.0.0.1,.home.lan", "HTTP_PROXY": "http://from.a.request.header:1"])
        XCTAssertEqual(try lookup("wss://signal.example.org/ws", in: proxies), ["http://tls.proxy:8080"])
        XCTAssertEqual(try lookup("https://signal.example.org/", in: proxies), ["http://tls.proxy:8080"])
        XCTAssertEqual(try lookup("ws://signal.example.org/ws", in: proxies), ["http://plain.proxy:3128"])
        XCTAssertEqual(try lookup("wss://127.0.0.1:8443/ws", in: proxies), ["direct://"])
        XCTAssertEqual(try lookup("wss://server.home.lan/ws", in: proxies), ["direct://"])
        XCTAssertEqual(proxies.direct, ["localhost", "127.0.0.1", ".home.lan"])
    }

    func testWithoutProxiesThereIsNoResolverAndAllProxyIsTheFallback() throws {
        XCTAssertNil(ProxyFromEnvironment([:]).resolver())
        XCTAssertNil(ProxyFromEnvironment(["no_proxy": "localhost", "http_proxy": " "]).resolver())
        let fallback = ProxyFromEnvironment(["ALL_PROXY": "socks5://10.0.0.2:1080"])
        XCTAssertEqual(try lookup("wss://signal.example.org/ws", in: fallback), ["socks5://10.0.0.2:1080"])
    }

    /// The connector sends its request to the proxy the environment names,
    /// and never looks the server's name up itself.
    func testTheConnectorReachesTheServerThroughTheProxy() throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        XCTAssertGreaterThanOrEqual(listener, 0)
        defer { close(listener) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        try withUnsafeMutablePointer(to: &address) { pointer in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
                guard bind(listener, raw, length) == 0, listen(listener, 1) == 0,
                      getsockname(listener, raw, &length) == 0 else { throw XCTSkip("no loopback socket") }
            }
        }
        let port = UInt16(bigEndian: address.sin_port)
        final class Received: @unchecked Sendable { let lock = NSLock(); var text = "" }
        let received = Received()
        Thread.detachNewThread {
            let client = accept(listener, nil, nil)
            guard client >= 0 else { return }
            var bytes = [UInt8](repeating: 0, count: 2048)
            let count = read(client, &bytes, bytes.count)
            received.lock.withLock { received.text = String(decoding: bytes.prefix(max(0, count)), as: UTF8.self) }
            close(client)
        }
        let connector = try WebSocketConnector(trustedCAFile: nil,
                                               proxies: ProxyFromEnvironment(["http_proxy": "127.0.0.1:\(port)"]))
        var outcome: Result<WebSocketConnection, GLibError>?
        connector.connect(to: "ws://signal.invalid:8080/ws") { outcome = $0 }
        XCTAssertTrue(MainContext.run(timeout: 10) { outcome != nil })
        let request = received.lock.withLock { received.text }
        XCTAssertTrue(request.contains("signal.invalid:8080"), "the proxy received: \(request)")
        guard case .failure = outcome else { return XCTFail("the proxy closed the connection, yet it opened") }
    }
}
