/// Who may watch the restream: a login (Digest), or anyone with an explicit
/// `--rtsp-anonymous`. Pure: decided from the options, before anything is served.
public enum RTSPAccess: Equatable, Sendable {
    case login(user: String, password: String)
    case anonymous

    /// The options that do not go together (a usage error, exit 2), or nil.
    /// `port`: `--rtsp-port`; `user`, `passwordFile`: given or not.
    public static func usageProblem(port: Int?, user: Bool, passwordFile: Bool, anonymous: Bool) -> String? {
        guard port != nil else {
            if user || passwordFile || anonymous {
                return "--rtsp-user, --rtsp-password-file and --rtsp-anonymous need --rtsp-port N too"
            }
            return nil
        }
        if anonymous {
            if user || passwordFile {
                return "--rtsp-anonymous serves without a login: drop --rtsp-user and --rtsp-password-file, or drop --rtsp-anonymous"
            }
            return nil
        }
        if !user || !passwordFile {
            return "--rtsp-port needs a login: give --rtsp-user NAME and --rtsp-password-file PATH (an owner-only file), "
                + "or --rtsp-anonymous to let anyone who reaches the port watch the door"
        }
        return nil
    }
}

/// Where the restream is served and to whom.
public struct RTSPSettings: Equatable, Sendable {
    /// The TCP port (0: any free one, for tests).
    public var port: Int
    public var access: RTSPAccess
    /// The one address to listen on (`--rtsp-address`); nil: every IPv4 address.
    public var address: String?

    public init(port: Int, access: RTSPAccess, address: String? = nil) {
        self.port = port
        self.access = access
        self.address = address
    }

    /// The mount's path: `rtsp://host:port/door`.
    public static let path = "/door"

    /// A port for `--rtsp-port`, or nil.
    public static func port(_ text: String) -> Int? {
        guard let value = Int(text), (1...65535).contains(value) else { return nil }
        return value
    }
}
