import CGLib
import CSIPAgentInterface

/// The agent library (libc1nksipagent.so, sofia-sip inside), loaded once, on the first
/// `SIPAgent`: a process without SIP never maps sofia-sip. It is loaded apart because
/// sofia-sip exports STUN functions under libnice's names; linked in, its copies would
/// take libnice's place and every webrtcbin call's ICE would fail (c1nk_sip_agent.h).
public enum SIPAgentLibrary {
    /// The library's functions, each present (the loader checked the library's interface version).
    struct Functions {
        let newAgent: @convention(c) (UnsafePointer<gchar>?, UnsafePointer<gchar>?, OpaquePointer?, C1nkSIPEventFunc?,
                                      gpointer?, UnsafeMutablePointer<UnsafeMutablePointer<GError>?>?) -> OpaquePointer?
        let invite: @convention(c) (OpaquePointer?, UnsafePointer<gchar>?, UnsafePointer<gchar>?) -> guint
        let setCredentials: @convention(c) (OpaquePointer?, UnsafePointer<gchar>?, UnsafePointer<gchar>?) -> Void
        let registerAt: @convention(c) (OpaquePointer?, UnsafePointer<gchar>?, UnsafePointer<gchar>?, guint) -> gboolean
        let hangUp: @convention(c) (OpaquePointer?, guint) -> Void
        let stop: @convention(c) (OpaquePointer?) -> Void
        let free: @convention(c) (OpaquePointer?) -> Void
    }

    /// Loads the library if it is not yet loaded. Throws what is missing and what to install.
    static func functions() throws -> Functions {
        var error: UnsafeMutablePointer<GError>?
        guard let table = c1nk_sip_agent_load(&error)?.pointee else {
            let message = error.map { String(cString: $0.pointee.message) } ?? "the SIP agent library did not load"
            if error != nil { g_error_free(error) }
            throw SIPAgent.Failure(description: message)
        }
        guard let newAgent = table.new_agent, let invite = table.invite, let setCredentials = table.set_credentials,
              let registerAt = table.register_at, let hangUp = table.hang_up, let stop = table.stop, let free = table.free_agent
        else { throw SIPAgent.Failure(description: "the SIP agent library lacks a function; reinstall c1nk-gst") }
        return Functions(newAgent: newAgent, invite: invite, setCredentials: setCredentials, registerAt: registerAt,
                         hangUp: hangUp, stop: stop, free: free)
    }

    /// Where the loaded library is; nil before the first agent.
    public static var loadedPath: String? { c1nk_sip_agent_loaded_path().map { String(cString: $0) } }
}
