import C1nkGLibBase
import CGLib
import CSIPAgentInterface

/// The SIP user agent (sofia-sip, in the agent library `SIPAgentLibrary` loads) on the main context:
/// it places calls and takes none. Signalling only; each call's SDP offer is
/// built by the caller (`SDPOffer`) and the answer read here (`SDPAnswer`).
/// The C agent's pointer and callback stay in this file. Main context only.
public final class SIPAgent {
    public typealias CallID = UInt32

    public enum CallEvent: Equatable, Sendable {
        /// A provisional answer: 180 Ringing, 183 Session Progress, …
        case progress(status: Int, phrase: String)
        /// The phone answered (ACK sent) with an answer we can use.
        case answered(SDPAnswer)
        /// The call did not come about: a final 3xx–6xx, a local failure, or an
        /// answer with no usable codec (then the agent has already sent BYE).
        case failed(status: Int, reason: String)
        /// The phone re-INVITEd the answered call (a refresh, a hold); answered 200 with our
        /// first offer, the media unchanged.
        case updated
        /// The phone hung up (its BYE answered 200).
        case hungUpByPhone
        /// A key pressed on the phone, sent as SIP INFO (`application/dtmf-relay` or `application/dtmf`).
        case key(Character)
        /// Any other INFO in the call, answered 200 and otherwise ignored.
        case info(contentType: String, body: String)
        /// Over on both sides; the id is not used again.
        case ended
    }

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    public enum RegistrationEvent: Equatable, Sendable {
        /// The registrar took us; the stack refreshes the registration before it expires.
        case registered
        /// The registrar refused, did not answer, or refused our credentials (401/407 after them).
        case failed(status: Int, reason: String)
    }

    /// The registration's outcomes (`register`), each answer and each refresh that fails.
    public var onRegistration: ((RegistrationEvent) -> Void)?
    /// Every call's events, in order.
    public var onCallEvent: ((CallID, CallEvent) -> Void)?
    /// An INVITE from outside was refused with 403 (`from`: its From address, as text).
    public var onRefused: ((String) -> Void)?

    private let functions: SIPAgentLibrary.Functions
    private var agent: OpaquePointer?
    private var reference: Unmanaged<Reference>?
    private var offers: [CallID: SDPOffer] = [:]
    private var onStopped: (() -> Void)?
    private var lastRefusalLog = -Double.infinity
    private var refusedSinceLog = 0
    public let listenURL: String

    /// Listens on `host`:`port` (`transport`: udp, tcp or tls) and says `from` in its requests.
    public init(host: String, port: Int, transport: String = "udp", from: String) throws {
        guard ["udp", "tcp", "tls"].contains(transport) else {
            throw Failure(description: "unknown SIP transport \(transport): use udp, tcp or tls")
        }
        guard SDPAnswer.numericAddress(Substring(host)) != nil, (1...65535).contains(port) else {
            throw Failure(description: "cannot listen for SIP on \(host):\(port): give a numeric address of this machine and a port 1–65535")
        }
        let hostPart = host.contains(":") ? "[\(host)]" : host
        listenURL = transport == "tls" ? "sips:\(hostPart):\(port)" : "sip:\(hostPart):\(port);transport=\(transport)"
        functions = try SIPAgentLibrary.functions()
        let reference = Unmanaged.passRetained(Reference(self))
        var error: UnsafeMutablePointer<GError>?
        let context = MainContext.context ?? g_main_context_default()
        guard let agent = functions.newAgent(listenURL, from, context, { user, call, event, status, text, body, length in
            guard let user else { return }
            let agent = Unmanaged<Reference>.fromOpaque(user).takeUnretainedValue().agent
            agent?.handle(call: call, event: event, status: Int(status),
                          text: text.map { String(cString: $0) } ?? "",
                          body: body.map { String(decoding: UnsafeRawBufferPointer(start: $0, count: Int(length)), as: UTF8.self) })
        }, reference.toOpaque(), &error) else {
            reference.release()
            let message = error.map { String(cString: $0.pointee.message) } ?? "unknown error"
            if error != nil { g_error_free(error) }
            throw Failure(description: "the SIP agent did not start: \(message)")
        }
        self.agent = agent
        self.reference = reference
        Log.sip.info("SIP agent listening on \(listenURL)")
    }

    deinit {
        if let agent { functions.free(agent) }
        reference?.release()
    }

    /// Sends an INVITE to `uri` with `offer`. Nil when the stack refuses the address.
    public func call(_ uri: SIPURI, offer: SDPOffer) -> CallID? {
        guard let agent else { return nil }
        let id = functions.invite(agent, uri.text, offer.text)
        guard id != 0 else {
            Log.sip.warning("cannot call \(uri): the SIP stack does not take the address")
            return nil
        }
        offers[id] = offer
        Log.sip.info("call \(id): INVITE to \(uri)")
        return id
    }

    /// The user and password for digest challenges (401/407) to REGISTER and INVITE.
    public func setCredentials(user: String, password: String) {
        guard let agent else { return }
        functions.setCredentials(agent, user, password)
    }

    /// Registers `aor` at `registrar` for `expires` seconds; `onRegistration` says how it went.
    public func register(at registrar: SIPURI, as aor: SIPURI, expires: Int) -> Bool {
        guard let agent else { return false }
        Log.sip.info("REGISTER \(aor) at \(registrar)")
        return functions.registerAt(agent, registrar.text, aor.text, UInt32(clamping: max(expires, 1))) != 0
    }

    /// CANCEL before the phone answers, BYE after; `.ended` follows.
    public func hangUp(_ call: CallID) {
        guard let agent else { return }
        functions.hangUp(agent, call)
    }

    /// Ends every call (BYE or CANCEL), shuts the stack down and then calls `done`.
    public func stop(_ done: @escaping () -> Void) {
        guard let agent else { done(); return }
        onStopped = done
        functions.stop(agent)
    }

    private func handle(call: CallID, event: C1nkSIPEvent, status: Int, text: String, body: String?) {
        switch event {
        case C1NK_SIP_EVENT_PROGRESS:
            onCallEvent?(call, .progress(status: status, phrase: text))
        case C1NK_SIP_EVENT_ANSWERED:
            guard let offer = offers[call] else { return }
            do {
                let answer = try SDPAnswer(body ?? "", offer: offer)
                Log.sip.info("call \(call): answered, \(answer.codec.rawValue) to \(answer.address):\(answer.port)")
                onCallEvent?(call, .answered(answer))
            } catch {
                Log.sip.warning("call \(call): \(error); hanging up")
                hangUp(call)
                onCallEvent?(call, .failed(status: 488, reason: "\(error)"))
            }
        case C1NK_SIP_EVENT_FAILED:
            Log.sip.info("call \(call): \(status) \(text)")
            onCallEvent?(call, .failed(status: status, reason: "\(status) \(text)"))
        case C1NK_SIP_EVENT_REINVITE:
            Log.sip.info("call \(call): re-INVITE answered, media unchanged")
            onCallEvent?(call, .updated)
        case C1NK_SIP_EVENT_BYE:
            Log.sip.info("call \(call): the phone hung up")
            onCallEvent?(call, .hungUpByPhone)
        case C1NK_SIP_EVENT_INFO:
            if let key = PhoneKey.key(infoType: text, body: body ?? "") {
                Log.sip.info("call \(call): key \(key) (SIP INFO)")
                onCallEvent?(call, .key(key))
            } else {
                onCallEvent?(call, .info(contentType: String(text.prefix(100)), body: body ?? ""))
            }
        case C1NK_SIP_EVENT_ENDED:
            offers[call] = nil
            Log.sip.info("call \(call): ended")
            onCallEvent?(call, .ended)
        case C1NK_SIP_EVENT_REFUSED:
            // One line per 10 s at most: a flood of INVITEs must not flood the log too.
            refusedSinceLog += 1
            let now = MainContext.monotonicSeconds()
            if now - lastRefusalLog >= 10 {
                let more = refusedSinceLog > 1 ? " (and \(refusedSinceLog - 1) more since the last such line)" : ""
                Log.sip.warning("refused an INVITE from \(text.prefix(SIPURI.longest)) with 403\(more): the bridge places calls and takes none")
                lastRefusalLog = now
                refusedSinceLog = 0
            }
            onRefused?(String(text.prefix(SIPURI.longest)))
        case C1NK_SIP_EVENT_REGISTERED:
            Log.sip.info("registered (\(status) \(text))")
            onRegistration?(.registered)
        case C1NK_SIP_EVENT_REGISTRATION_FAILED:
            let reason = status == 401 || status == 407 || status == 403
                ? "\(status) \(text): the registrar refused the credentials; check --sip-user and --sip-password-file"
                : "\(status) \(text)"
            Log.sip.warning("registration failed: \(reason)")
            onRegistration?(.failed(status: status, reason: reason))
        case C1NK_SIP_EVENT_STOPPED:
            if let agent { functions.free(agent) }
            agent = nil
            reference?.release()
            reference = nil
            Log.sip.info("SIP agent stopped")
            let done = onStopped
            onStopped = nil
            done?()
        default:
            break
        }
    }

    /// What the C agent holds: a weak way back, so the agent can go first.
    private final class Reference {
        weak var agent: SIPAgent?
        init(_ agent: SIPAgent) { self.agent = agent }
    }
}
