import CGLib

/// The proxies a WebSocket client uses, from the environment as curl reads
/// it: `https_proxy` for `wss://`, `http_proxy` for `ws://`, `all_proxy`
/// otherwise, `no_proxy` for the hosts reached directly.
///
/// libsoup would otherwise ask GIO's default resolver, which loads libproxy
/// and the GNOME settings stack (1.1 MB resident in an idle answerer) and
/// follows WPAD, which anyone on the home network can answer. A service has
/// no desktop proxy settings to read; its unit's `Environment=` is where a
/// proxy is set. Without one the session has no resolver at all: any
/// resolver, even a simple one, makes GIO instantiate its default as it
/// connects.
package struct ProxyFromEnvironment: Equatable, Sendable {
    /// Proxy URIs by the scheme of the address they carry.
    package var byScheme: [String: String] = [:]
    package var fallback: String?
    package var direct: [String] = []

    package init(_ environment: [String: String]) {
        func value(_ names: String...) -> String? {
            for name in names {
                if let value = environment[name]?.trimmingWhitespace(), !value.isEmpty { return Self.uri(value) }
            }
            return nil
        }
        // Uppercase HTTP_PROXY is left out, as curl does: a CGI-style server sets it from a request header.
        if let http = value("http_proxy") { byScheme["http"] = http; byScheme["ws"] = http }
        if let https = value("https_proxy", "HTTPS_PROXY") { byScheme["https"] = https; byScheme["wss"] = https }
        fallback = value("all_proxy", "ALL_PROXY")
        direct = (environment["no_proxy"] ?? environment["NO_PROXY"] ?? "")
            .split(separator: ",").map { $0.trimmingWhitespace() }.filter { !$0.isEmpty }
    }

    /// A proxy given as `host:port` is an HTTP proxy, as curl takes it.
    static func uri(_ value: String) -> String {
        value.contains("://") ? value : "http://" + value
    }

    /// No proxy is set: every connection is direct.
    package var isDirect: Bool { byScheme.isEmpty && fallback == nil }

    /// A GIO resolver with these proxies (`direct://` where none applies), the
    /// caller owns it; nil when `isDirect`.
    package func resolver() -> OpaquePointer? {
        guard !isDirect else { return nil }
        let resolver = withCStrings(direct) { hosts in g_simple_proxy_resolver_new(fallback, hosts) }!
        let simple = UnsafeMutableRawPointer(resolver).assumingMemoryBound(to: GSimpleProxyResolver.self)
        for (scheme, proxy) in byScheme.sorted(by: { $0.key < $1.key }) {
            g_simple_proxy_resolver_set_uri_proxy(simple, scheme, proxy)
        }
        return resolver
    }

    private func withCStrings<Result>(_ strings: [String], _ body: (UnsafeMutablePointer<UnsafeMutablePointer<gchar>?>) -> Result) -> Result {
        var pointers: [UnsafeMutablePointer<gchar>?] = strings.map { g_strdup($0) }
        pointers.append(nil)
        defer { pointers.forEach { g_free($0) } }
        return pointers.withUnsafeMutableBufferPointer { body($0.baseAddress!) }
    }
}
