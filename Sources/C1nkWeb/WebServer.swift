import C1nkProtocol
import C1nkCall
import C1nkGLibBase
import FoundationEssentials

/// The web page's server in the answering process: `WebAPI` on an
/// `HTTPServer` (HTTPS, or plain HTTP on loopback only), on the main
/// context, with the server-sent event streams (`GET /api/events`).
public final class WebServer {
    public struct Settings {
        public var port: UInt16
        /// Plain HTTP, on 127.0.0.1 only (behind a local proxy, or for a browser on this machine).
        public var plainHTTP = false
        public var certificate: (certificate: String, key: String)?
        /// The one address to listen on (`--web-address`); nil: every IPv4 interface.
        public var address: String?
        /// The connections' caps and deadlines. Behind the loopback proxy of
        /// plain HTTP every browser has the proxy's address, so one address may use them all.
        public var connections = HTTPConnectionTable.Limits()
        public init(port: UInt16) { self.port = port }

        var addresses: HTTPServer.Addresses {
            if plainHTTP { return .loopback }
            return address.map { .address($0) } ?? .all
        }

        var connectionLimits: HTTPConnectionTable.Limits {
            var limits = connections
            if plainHTTP { limits.perAddress = limits.maximum }
            return limits
        }
    }

    /// Event streams open at once; more are refused (503).
    public static let maximumStreams = 32

    public let api: WebAPI
    public var port: UInt16 { http?.port ?? 0 }
    public var streamCount: Int { streams.count }
    /// Requests whose body was refused.
    public var refusedBodies: Int { http?.refusedBodies ?? 0 }
    /// The server's connections (open now, refused at the caps, closed past a deadline).
    public var connections: (open: Int, refused: Int, timedOut: Int) {
        (http?.connectionCount ?? 0, http?.refusedConnections ?? 0, http?.timedOutConnections ?? 0)
    }
    private var http: HTTPServer?
    private let behindProxy: Bool
    private var streams: [ObjectIdentifier: (exchange: HTTPExchange, client: String, session: String?)] = [:]
    private var keepAlive: GLibTimer?
    /// Fires when the next session with an event stream or a viewer ends.
    private var expiry: GLibTimer?

    public init(settings: Settings, api: WebAPI) throws {
        self.api = api
        behindProxy = settings.plainHTTP
        http = try HTTPServer(port: settings.port, addresses: settings.addresses,
                              tlsCertificate: settings.plainHTTP ? nil : settings.certificate, limits: settings.connectionLimits,
                              bodyLimit: WebAPI.bodyLimit) { [weak self] request, exchange in
            self?.handle(request, exchange)
        }
        http?.log = Log.web
        api.onLogout = { [weak self] client in
            guard let self else { return }
            for stream in self.streams.values where stream.client == client { stream.exchange.finish() }
            self.api.clientGone?(client)
        }
        // A new session may push out the least recently used one.
        api.onLogin = { [weak self] in self?.endExpiredSessions() }
        keepAlive = GLibTimer(after: 15, repeats: true) { [weak self] in self?.broadcast(": keep-alive\n\n") }
        let host = settings.plainHTTP ? "http://127.0.0.1" : "https://" + (settings.address.map { $0.contains(":") ? "[\($0)]" : $0 } ?? "<this host>")
        Log.web.info("the web page is on \(host):\(port)\(settings.plainHTTP || settings.address != nil ? "" : " (every IPv4 interface)")")
    }

    /// Each of the answerer's events: the page's state, the ring list, and every event stream.
    public func send(_ event: CallEvent, object: [String: Any]) {
        api.apply(event, t: object["t"] as? Int64 ?? MainContext.unixMilliseconds())
        guard !streams.isEmpty, let data = JSONValue.text(of: object, sortedKeys: true, escapingSlashes: false) else { return }
        broadcast("event: \(event.name)\ndata: \(String(decoding: data, as: UTF8.self))\n\n")
    }

    public func stop() {
        for stream in streams.values { stream.exchange.finish() }
        streams.removeAll()
        keepAlive = nil
        expiry = nil
        http?.stop()
        http = nil
    }

    deinit { stop() }

    /// Behind the loopback proxy of plain HTTP every peer is 127.0.0.1: the
    /// browser's address is the one the proxy put last in `X-Forwarded-For`
    /// (only local processes reach a loopback listener). Elsewhere the header is not believed.
    static func browserAddress(_ request: HTTPRequest, behindProxy: Bool) -> String {
        guard behindProxy, let forwarded = request.header("x-forwarded-for"),
              let last = forwarded.split(separator: ",").last?.trimmingWhitespace(),
              HTTPServer.isIPAddress(last) else { return request.peer }
        return last
    }

    private func handle(_ request: HTTPRequest, _ exchange: HTTPExchange) {
        var request = request
        request.peer = Self.browserAddress(request, behindProxy: behindProxy)
        answer(api.handle(request, now: MainContext.monotonicSeconds()), exchange)
    }

    private func answer(_ reply: WebAPI.Reply, _ exchange: HTTPExchange) {
        switch reply {
        case .later(let decide):
            decide { [weak self] reply in self?.answer(reply, exchange) }
        case .response(let response):
            exchange.respond(response)
        case .deferred(let later):
            later { exchange.respond($0) }
        case let .file(path, headers, range, missing):
            exchange.respondWithFile(path, headers: headers, range: range) { status in
                status == 404 ? missing : WebAPI.error(status, "the file could not be read")
            }
        case let .whep(offer, client):
            guard let whep = api.whep else { return exchange.respond(WebAPI.error(404, "no media")) }
            defer { endExpiredSessions() }
            whep(offer, client) { reply in
                switch reply {
                case let .answer(id, sdp):
                    exchange.respond(HTTPResponse(status: 201, headers: [("Content-Type", "application/sdp"), ("Location", "/api/whep/" + id),
                                                                        ("Cache-Control", "no-store")] + WebAPI.securityHeaders,
                                                  body: Array(sdp.utf8)))
                case let .refused(status, message):
                    exchange.respond(WebAPI.error(status, message))
                }
            }
        case let .events(client, session):
            guard streams.count < Self.maximumStreams else {
                exchange.respond(WebAPI.error(503, "too many event streams open"))
                return
            }
            let key = ObjectIdentifier(exchange)
            exchange.onClosed = { [weak self] in
                guard let self else { return }
                self.streams[key] = nil
                if !self.streams.values.contains(where: { $0.client == client }) { self.api.clientGone?(client) }
            }
            exchange.startStream(status: 200, headers: [("Content-Type", "text/event-stream"), ("Cache-Control", "no-store"),
                                                        ("X-Accel-Buffering", "no")] + WebAPI.securityHeaders)
            streams[key] = (exchange, client, session)
            endExpiredSessions()
            let state = JSONValue.text(of: api.state.json, sortedKeys: true) ?? Data("{}".utf8)
            exchange.send("retry: 2000\nevent: state\ndata: \(String(decoding: state, as: UTF8.self))\n\n")
        }
    }

    /// Ends the event streams and the viewers of every session that has
    /// ended (unused too long, too old, pushed out), and waits for the next end.
    private func endExpiredSessions() {
        let now = MainContext.monotonicSeconds()
        var next: Double?
        var ended = Set<String>()
        for stream in streams.values {
            guard let token = stream.session else { continue }
            if let end = api.sessions.expiry(token), now < end {
                next = min(next ?? end, end)
            } else {
                stream.exchange.finish()
                ended.insert(stream.client)
            }
        }
        let media = api.endedMediaSessions(now: now)
        ended.formUnion(media.ended)
        if let end = media.next { next = min(next ?? end, end) }
        for client in ended {
            Log.web.info("the session of \(client) ended: its event streams and viewers end")
            api.clientGone?(client)
        }
        // A use moves the end later: the timer then finds it alive and waits again.
        expiry = next.map { GLibTimer(after: max(0.05, $0 - now)) { [weak self] in self?.endExpiredSessions() } }
    }

    func broadcast(_ text: String) {
        for stream in streams.values { stream.exchange.send(text) }
    }
}
