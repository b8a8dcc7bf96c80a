import C1nkGLibBase
import FoundationEssentials

/// What a request carries to say who sends it: the session cookie, a bearer
/// token (scripts) and the CSRF token header.
public struct WebCredentials: Equatable, Sendable {
    public static let cookieName = "c1nk_session"
    public static let csrfHeader = "x-csrf-token"

    public var session: String?
    public var bearer: String?
    public var csrf: String?

    public init(cookie: String?, authorization: String?, csrf: String?) {
        session = cookie.flatMap { Self.cookie(Self.cookieName, in: $0) }
        if let authorization, authorization.lowercased().hasPrefix("bearer ") {
            let token = authorization.dropFirst(7).trimmingWhitespace()
            bearer = token.isEmpty ? nil : token
        }
        self.csrf = csrf
    }

    /// The value of cookie `name` in a `Cookie:` header.
    public static func cookie(_ name: String, in header: String) -> String? {
        for pair in header.split(separator: ";") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, parts[0].trimmingWhitespace() == name else { continue }
            let value = parts[1].trimmingWhitespace()
            return value.isEmpty ? nil : value
        }
        return nil
    }

    /// The `Set-Cookie` of a new session: not for scripts, only over HTTPS, never sent cross-site.
    public static func setCookie(_ token: String, maxAge: Int) -> String {
        "\(cookieName)=\(token); Path=/; Max-Age=\(maxAge); HttpOnly; Secure; SameSite=Strict"
    }

    public static var clearCookie: String {
        "\(cookieName)=; Path=/; Max-Age=0; HttpOnly; Secure; SameSite=Strict"
    }
}

