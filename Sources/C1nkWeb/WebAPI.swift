import C1nkProtocol
import C1nkCall
import C1nkGLibBase
import FoundationEssentials

/// The web page's requests, decided: who sends it (session cookie and CSRF
/// token, or the scripts' bearer token), logins and their rate limit, the
/// JSON API (docs/web.md) and the static files. Pure apart from reading
/// files: the time is given, commands go to `command` (the one command path
/// of stdin, the control socket and MQTT). `WebServer` puts it on a socket.
public final class WebAPI {
    public enum Reply {
        case response(HTTPResponse)
        /// Subscribe the request to the server-sent events (`client`: who, for
        /// `clientGone`; `session`: its session's token, whose end ends the stream).
        case events(client: String, session: String?)
        /// A browser's WHEP offer, answered later by `whep`.
        case whep(offer: String, client: String)
        /// A file sent from disk in chunks, off the main context (`Range` honoured); `missing` if it cannot be opened.
        case file(path: String, headers: [(String, String)], range: String?, missing: HTTPResponse)
        /// Answered later, on the main context, through the closure handed in (a login being hashed).
        case deferred((_ answer: @escaping (HTTPResponse) -> Void) -> Void)
        /// Decided later, on the main context, through the closure handed in
        /// (a folder read off it): the reply it gets is sent as if it came at once.
        case later((_ reply: @escaping (Reply) -> Void) -> Void)
    }

    /// What `whep` answers: the viewer's id and the SDP answer, or a refusal.
    public enum MediaReply: Sendable {
        case answer(id: String, sdp: String)
        case refused(status: Int, message: String)
    }

    public struct Configuration {
        public var passwordHash: String
        public var token: String?
        public var root: String
        public var recordings: WebRecordings
        public init(passwordHash: String, token: String? = nil, root: String, recordings: WebRecordings = WebRecordings(folder: nil)) {
            self.passwordHash = passwordHash
            self.token = token
            self.root = root
            self.recordings = recordings
        }
    }

    /// Who a request is from, once authenticated.
    enum Client {
        case session(WebSessions.Session)
        case script
        var id: String {
            switch self {
            case .session(let session): return Self.id(ofSession: session.token)
            case .script: return "token"
            }
        }
        static func id(ofSession token: String) -> String { "session:" + token.prefix(8) }
    }

    public var configuration: Configuration
    public var limits = LoginLimits()
    /// Wrong bearer tokens, per address: 5 within 60 s, then 429 until the window passes.
    public var tokenFailures = LoginRateLimiter()
    /// Hashes each login's password off the main context.
    public var verifier = PasswordVerifier()
    private var lastBusyLog = -Double.infinity
    public var sessions = WebSessions()
    public internal(set) var state = WebCallState()
    public private(set) var rings = WebRings()
    /// One command word (accept, reject, open, hangup, mute, unmute); an error text or nil.
    public var command: (String) -> String? = { _ in "no answerer" }
    /// A browser's offer for the call's media (`POST /api/whep`); nil: no media to the page.
    public var whep: ((_ offer: String, _ client: String, _ reply: @escaping (MediaReply) -> Void) -> Void)?
    /// The last event stream of `client` closed: the page went away (its viewers can go).
    public var clientGone: ((_ client: String) -> Void)?
    /// A session logged out: its event streams end (`WebServer`).
    var onLogout: ((_ client: String) -> Void)?
    /// A session began (which may have pushed out the least recently used one).
    var onLogin: (() -> Void)?
    /// The sessions that asked for the call's media, by client: their end ends their viewers.
    private(set) var mediaSessions: [String: String] = [:]
    /// Browsers receiving the call's media now (`viewers` of `/api/state`).
    public var viewerCount: () -> Int = { 0 }
    /// Ends the viewer `id` (`DELETE /api/whep/ID`); false when there is none.
    public var whepDelete: ((_ id: String) -> Bool)?

    public init(_ configuration: Configuration, rings: WebRings = WebRings()) {
        self.configuration = configuration
        self.rings = rings
    }

    public func apply(_ event: CallEvent, t: Int64) {
        state.apply(event)
        rings.apply(event, t: t)
    }

    /// The largest body each route takes, in bytes: a password or a command
    /// word in JSON, a browser's SDP offer (a few KiB); no other route takes one.
    public static func bodyLimit(method: String, path: String) -> Int {
        switch (method, path) {
        case ("POST", "/api/login"), ("POST", "/api/command"), ("POST", "/api/logout"): return 4 * 1024
        case ("POST", "/api/whep"): return 64 * 1024
        default: return 0
        }
    }

    public func handle(_ request: HTTPRequest, now: Double) -> Reply {
        let path = request.path
        if path.hasPrefix("/api/") {
            func secured(_ response: HTTPResponse) -> HTTPResponse {
                var response = response
                response.headers.append(("Cache-Control", "no-store"))
                response.headers += Self.securityHeaders
                return response
            }
            func securedReply(_ reply: Reply) -> Reply {
                switch reply {
                case .response(let http): return .response(secured(http))
                case .deferred(let later): return .deferred { answer in later { answer(secured($0)) } }
                case .later(let decide): return .later { reply in decide { reply(securedReply($0)) } }
                case let .file(path, headers, range, missing):
                    return .file(path: path, headers: secured(HTTPResponse(status: 200, headers: headers)).headers, range: range, missing: secured(missing))
                case let other: return other
                }
            }
            return securedReply(api(request, now: now))
        }
        return staticFile(request)
    }

    private func api(_ request: HTTPRequest, now: Double) -> Reply {
        if request.path == "/api/login" {
            guard request.method == "POST" else { return .response(Self.error(405, "use POST")) }
            return login(request, now: now)
        }
        let credentials = WebCredentials(cookie: request.header("cookie"), authorization: request.header("authorization"),
                                         csrf: request.header(WebCredentials.csrfHeader))
        if credentials.bearer != nil, let wait = tokenFailures.retryAfter(request.peer, now: now) {
            return .response(Self.limited(wait, "too many wrong tokens"))
        }
        guard let client = authenticate(credentials, now: now) else {
            if credentials.bearer != nil {
                tokenFailures.failed(request.peer, now: now)
                let limited = tokenFailures.retryAfter(request.peer, now: now)
                Log.web.warning("wrong bearer token from \(request.peer) for \(request.method) \(request.path)"
                                + (limited.map { "; its tokens are refused for \(Int($0)) s" } ?? ""))
            }
            return .response(Self.error(401, "log in first"))
        }
        if request.method != "GET" && request.method != "HEAD" {
            if case .session(let session) = client {
                guard let csrf = credentials.csrf, constantTimeEqual(csrf, session.csrf) else {
                    Log.web.warning("refused \(request.method) \(request.path) from \(request.peer): no CSRF token")
                    return .response(Self.error(403, "missing or wrong CSRF token"))
                }
            }
        }
        return route(request, client: client, credentials: credentials)
    }

    private func authenticate(_ credentials: WebCredentials, now: Double) -> Client? {
        if let bearer = credentials.bearer {
            guard let token = configuration.token, constantTimeEqual(bearer, token) else { return nil }
            return .script
        }
        if let cookie = credentials.session, let session = sessions.use(cookie, now: now) { return .session(session) }
        return nil
    }

    /// Limited tries are refused at once; the others are hashed on the
    /// verifier's thread and answered when it is done.
    private func login(_ request: HTTPRequest, now: Double) -> Reply {
        let peer = request.peer
        if case let .limited(wait, _) = limits.check(peer, now: now) {
            return .response(Self.limited(wait, "too many wrong passwords; try again in \(Int(wait)) s"))
        }
        guard let object = Self.jsonObject(request.body), let password = object["password"] as? String, password.utf8.count <= 1024 else {
            return .response(Self.error(400, "send {\"password\": …}"))
        }
        let later = DeferredAnswer()
        let accepted = verifier.verify(password, hash: configuration.passwordHash) { [weak self] ok in
            guard let self else { return }
            later.deliver(self.finishLogin(ok, peer: peer, started: now))
        }
        guard accepted else {
            if now - lastBusyLog >= 10 {
                lastBusyLog = now
                Log.web.warning("logins refused unhashed (429): \(verifier.capacity) are being checked already; \(verifier.refused) refused so far")
            }
            return .response(Self.limited(1, "too many logins at once; try again in 1 s"))
        }
        limits.begin(peer, now: now)
        return .deferred(later.attach)
    }

    private func finishLogin(_ ok: Bool, peer: String, started: Double) -> HTTPResponse {
        guard ok else {
            let all = limits.globalFailures(now: MainContext.monotonicSeconds())
            Log.web.warning("wrong web password from \(peer)" + (all >= limits.global
                ? "; \(all) wrong passwords within \(Int(limits.window)) s: every address that failed is refused until they age" : ""))
            return Self.error(401, "wrong password")
        }
        limits.succeeded(peer, started: started)
        let session = sessions.create(now: MainContext.monotonicSeconds())
        Log.web.info("logged in from \(peer)")
        onLogin?()
        var response = Self.json(200, ["ok": true, "csrf": session.csrf])
        response.headers.append(("Set-Cookie", WebCredentials.setCookie(session.token, maxAge: Int(sessions.lifetime))))
        return response
    }

    /// The clients whose session has ended by `now` among those that asked
    /// for media; they are forgotten. The next end of one, if any.
    func endedMediaSessions(now: Double) -> (ended: [String], next: Double?) {
        var ended: [String] = []
        var next: Double?
        for (client, token) in mediaSessions {
            if let expiry = sessions.expiry(token), now < expiry {
                next = min(next ?? expiry, expiry)
            } else {
                ended.append(client)
                mediaSessions[client] = nil
            }
        }
        return (ended, next)
    }

    func noteMediaSession(client: String, token: String) { mediaSessions[client] = token }

    static func limited(_ wait: Double, _ message: String) -> HTTPResponse {
        var response = error(429, message)
        response.headers.append(("Retry-After", String(Int(wait))))
        return response
    }

    // MARK: - Responses

    static func json(_ status: Int, _ object: Any) -> HTTPResponse {
        let data = JSONValue.text(of: object, sortedKeys: true, escapingSlashes: false) ?? Data("{}".utf8)
        return HTTPResponse(status: status, headers: [("Content-Type", "application/json")], body: Array(data))
    }

    static func error(_ status: Int, _ message: String, _ extra: [String: Any] = [:]) -> HTTPResponse {
        json(status, extra.merging(["ok": false, "error": message]) { own, _ in own })
    }

    static func jsonObject(_ body: [UInt8]) -> [String: Any]? {
        guard !body.isEmpty else { return nil }
        return JSONValue.object(in: Data(body))
    }

    /// For every page and file: no framing, no sniffing, only our own scripts and media.
    static let securityHeaders: [(String, String)] = [
        ("Content-Security-Policy", "default-src 'self'; img-src 'self' data: blob:; media-src 'self' blob:; connect-src 'self'; frame-ancestors 'none'"),
        ("X-Content-Type-Options", "nosniff"),
        ("X-Frame-Options", "DENY"),
        ("Referrer-Policy", "no-referrer"),
    ]
}

/// A response that comes later: whichever of the answer and the place to
/// send it arrives second sends it.
final class DeferredAnswer {
    private var response: HTTPResponse?
    private var answer: ((HTTPResponse) -> Void)?

    func deliver(_ response: HTTPResponse) {
        if let answer { answer(response) } else { self.response = response }
        answer = nil
    }

    func attach(_ answer: @escaping (HTTPResponse) -> Void) {
        if let response { answer(response) } else { self.answer = answer }
        response = nil
    }
}
