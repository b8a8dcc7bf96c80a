import C1nkGLibBase

extension Log {
    /// The web page's server: logins, sessions, requests refused.
    package static let web = Log("c1nk-web", description: "c1nk web page and its API")
}
