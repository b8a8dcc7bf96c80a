import C1nkCall
import C1nkGLib
import C1nkMedia
import CGLib
import CRestream

/// The door, live over RTSP (`rtsp://host:port/door`): one gst-rtsp-server
/// on the main context, the call in progress mounted as one shared media
/// (`RestreamMedia`), unmounted at its end (a DESCRIBE between calls gets
/// 404 Not Found). The door's audio carries silence until the call is
/// accepted, as the speaker's gate does. Main context only.
public final class RTSPRestream {
    public let settings: RTSPSettings
    /// The port it listens on (the one asked for, or the one found for 0).
    public let port: Int
    /// The call mounted now, or nil.
    public private(set) var callId: String?
    private let server: OpaquePointer
    private let log = Log.rtsp

    public init(settings: RTSPSettings) throws {
        var user: String?
        var password: String?
        if case let .login(name, secret) = settings.access { (user, password) = (name, secret) }
        var error: UnsafeMutablePointer<GError>?
        guard let server = c1nk_restream_new(settings.address, guint(settings.port), user, password, MainContext.context, &error) else {
            let reason = error.map { String(cString: $0.pointee.message) } ?? "unknown error"
            g_clear_error(&error)
            let place = settings.address.map { "\($0) port \(settings.port)" } ?? "port \(settings.port)"
            throw RTSPError("cannot serve RTSP on \(place) (\(reason)); choose a free port with --rtsp-port"
                            + (settings.address == nil ? "" : ", or an address of this machine with --rtsp-address"))
        }
        self.server = server
        self.settings = settings
        port = Int(c1nk_restream_port(server))
        log.info("serving rtsp://<this host>:\(port)\(RTSPSettings.path) "
                 + (user == nil ? "to anyone (--rtsp-anonymous)" : "to \(user!) (Digest)"))
    }

    deinit { c1nk_restream_free(server) }

    /// A call's media was built: it is mounted, its audio closed unless already enabled.
    public func callStarted(_ session: AnswerSession) {
        let streams = session.receivedStreams
        guard let media = RestreamMedia(videoCodec: streams.video == nil ? nil : streams.videoCodec,
                                        audioCodec: streams.audio == nil ? nil : streams.audioCodec) else {
            stop()
            log.info("call \(session.callId): nothing of it can be restreamed")
            return
        }
        c1nk_restream_start(server, media.launch, media.hasVideo ? streams.video?.pointer : nil,
                            media.silence == nil ? nil : streams.audio?.pointer, media.silence)
        c1nk_restream_set_audio_open(server, session.audioEnabled ? 1 : 0)
        callId = session.callId
        log.debug("call \(session.callId): mounted \(media.launch)")
    }

    /// Follows the call: the audio opens at accept; the mount goes at the end.
    public func handle(_ event: CallEvent) {
        switch event {
        case .accepted(let id) where id == callId:
            c1nk_restream_set_audio_open(server, 1)
            log.debug("call \(id): the door's audio goes to RTSP clients")
        case .ended(let id, _, _, _, _) where id == callId:
            stop()
        default:
            break
        }
    }

    /// Unmounts the call and disconnects its clients.
    public func stop() {
        guard let id = callId else { return }
        c1nk_restream_stop(server)
        callId = nil
        log.debug("call \(id): unmounted")
    }

    /// Packets handed to the clients' media in the call mounted now (or the last one).
    public var packets: (video: Int, audio: Int) {
        (Int(c1nk_restream_packets(server, 0)), Int(c1nk_restream_packets(server, 1)))
    }
}

public struct RTSPError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
