import C1nkProtocol

/// Everything the answerer reports: the events log (`--events`), the status
/// lines, the control socket, the wall display and the benchmark all read
/// these. The names and fields on the wire are a contract (docs/events.md);
/// `CallEvent+JSON.swift` is their one encoding.
public enum CallEvent: Equatable, Sendable {
    // The signaling connection
    /// The socket to the server is open (`server` is its URL).
    case connected(server: String)
    /// The server acknowledged `hello`.
    case registered(deviceId: String)
    case disconnected(reason: String)
    /// A connection attempt failed; the next starts in `retryIn` seconds.
    case connectFailed(reason: String, retryIn: Double)

    // A call
    case ringing(callId: String, doorName: String)
    /// A ring while another call is in progress (reason `busy`), or beyond the
    /// machine's capacity (`over-capacity`): it does not ring, nothing is sent for it.
    case missed(callId: String, doorName: String, reason: String)
    case accepted(callId: String)
    /// The peer connection is up; `sinceRingMs` is added by the answerer.
    case mediaConnected(callId: String, sinceRingMs: Int? = nil)
    /// The door's first video frame reached the sink.
    case firstFrame(callId: String, sinceRingMs: Int? = nil)
    /// No video frame has reached the sink for `VideoStallWatch.threshold`
    /// seconds after the call's first frame: the picture is frozen.
    case videoStalled(callId: String)
    /// Frames reach the sink again; `stalledMs` since the last one before the stall.
    case videoResumed(callId: String, stalledMs: Int)
    case doorOpened(callId: String)
    case doorOpenFailed(callId: String, reason: DoorOpenFailure)
    /// Exactly one per ring that was not `missed`. `serverReason` is the
    /// server's `call-end` reason; `frames` (frames rendered) is added by the answerer.
    case ended(callId: String, reason: CallMachine.EndReason, doorName: String,
               serverReason: String? = nil, frames: Int? = nil)
    case recording(callId: String, path: String)
    /// The recording is finished; with `error` it stopped early and the call went on.
    case recorded(callId: String, path: String, error: String? = nil)
    /// The visitor's picture (a JPEG of the first good frame of the door's video) is on disk.
    case snapshot(callId: String, path: String)
    /// Which element decodes the door's video (at the first frame), or, with
    /// `failed`, the one that took over when `failed` errored during the call.
    case decoder(callId: String, element: String, hardware: Bool, failed: String? = nil, reason: String? = nil)
    /// Every `--levels-interval` of an accepted call: dBFS RMS, -100 for silence.
    case levels(callId: String, door: Double, resident: Double, muted: Bool)
    /// The probes' figures of a call (`--measure`, the benchmark).
    case measurements(callId: String, figures: [String: JSONValue])
    /// `--measure`: how late the main context ran a 10 ms timer from the ring
    /// until 3 s after the call ended (`count`, `p50`, `p95`, `p99`, `max`, in ms).
    case mainLoop(callId: String, lateMs: [String: JSONValue])

    // The SIP bridge (docs/sip.md)
    /// The registrar took the bridge's registration (`registrar`: its address); again after each failure.
    case sipRegistered(registrar: String)
    /// The door's ring rings these phones (their SIP addresses) at once.
    case sipRinging(callId: String, phones: [String])
    /// This phone took the call; the others were hung up.
    case sipAnswered(callId: String, phone: String)

    // Anything
    case error(callId: String? = nil, message: String)
    /// Retention deleted an old recording.
    case deleted(path: String, reason: String)
    /// SIGHUP: what was applied and what waits for a restart.
    case reloaded(applied: [String], needsRestart: [String])

    public enum DoorOpenFailure: String, Equatable, Sendable {
        /// The signaling socket is down: the request was not sent.
        case notConnected = "not-connected"
        /// No `door-open-ok` within the timeout.
        case noReply = "no-reply"
    }

    /// Which event it is, without its fields; the raw value is the `event` field.
    public enum Kind: String, CaseIterable, Sendable {
        case connected, registered, disconnected, connectFailed = "connect-failed"
        case ringing, missed, accepted, mediaConnected = "media-connected", firstFrame = "first-frame"
        case videoStalled = "video-stalled", videoResumed = "video-resumed"
        case doorOpened = "door-opened", doorOpenFailed = "door-open-failed", ended, recording, recorded, snapshot, decoder
        case levels, measurements, mainLoop = "main-loop", error, deleted, reloaded
        case sipRegistered = "sip-registered", sipRinging = "sip-ringing", sipAnswered = "sip-answered"
    }

    public var kind: Kind {
        switch self {
        case .connected: return .connected
        case .registered: return .registered
        case .disconnected: return .disconnected
        case .connectFailed: return .connectFailed
        case .ringing: return .ringing
        case .missed: return .missed
        case .accepted: return .accepted
        case .mediaConnected: return .mediaConnected
        case .firstFrame: return .firstFrame
        case .videoStalled: return .videoStalled
        case .videoResumed: return .videoResumed
        case .doorOpened: return .doorOpened
        case .doorOpenFailed: return .doorOpenFailed
        case .ended: return .ended
        case .recording: return .recording
        case .recorded: return .recorded
        case .snapshot: return .snapshot
        case .decoder: return .decoder
        case .levels: return .levels
        case .measurements: return .measurements
        case .mainLoop: return .mainLoop
        case .error: return .error
        case .deleted: return .deleted
        case .reloaded: return .reloaded
        case .sipRegistered: return .sipRegistered
        case .sipRinging: return .sipRinging
        case .sipAnswered: return .sipAnswered
        }
    }

    /// The `event` field.
    public var name: String { kind.rawValue }

    /// The call it is about, if any.
    public var callId: String? {
        switch self {
        case .connected, .registered, .disconnected, .connectFailed, .deleted, .reloaded, .sipRegistered: return nil
        case let .ringing(callId, _), let .missed(callId, _, _), let .accepted(callId), let .mediaConnected(callId, _),
             let .firstFrame(callId, _), let .videoStalled(callId), let .videoResumed(callId, _), let .doorOpened(callId), let .doorOpenFailed(callId, _),
             let .ended(callId, _, _, _, _), let .recording(callId, _), let .recorded(callId, _, _), let .snapshot(callId, _),
             let .decoder(callId, _, _, _, _),
             let .levels(callId, _, _, _), let .measurements(callId, _), let .mainLoop(callId, _),
             let .sipRinging(callId, _), let .sipAnswered(callId, _):
            return callId
        case .error(let callId, _): return callId
        }
    }
}
