import C1nkAnswerer
import C1nkCall
import C1nkGLib
import C1nkMedia
import C1nkViewers
import C1nkWeb

/// The call's media to the web page's browsers (`POST /api/whep`): one
/// `CallTap` on the call in progress, made when its media connect, and a
/// `BrowserViewer` per browser, at most `maximumViewers`. The call ending
/// ends them all; a browser leaving ends its own. One talks at a time: the
/// newest viewer of the client whose accept answered the call (`talker`),
/// once the call is accepted; every other viewer only watches. The door's
/// voice reaches the viewers only once the call is accepted (`CallTap`
/// sends silence before). An offer that
/// comes before the door's video flows waits for it (`videoWait`). Main context.
final class WebMedia {
    static let maximumViewers = 10
    /// How long an offer waits for the door's video to flow.
    static let videoWait = 2.0
    private let answerer: Answerer
    private var tap: CallTap?
    private var viewers: [String: BrowserViewer] = [:]
    private var clients: [String: String] = [:]
    private var order: [String] = []
    /// Offers waiting for the door's video, by viewer id.
    private var waits: [String: (client: String, wait: PolledWait)] = [:]
    var viewerCount: Int { viewers.count }
    /// The client whose accept answered the call in progress, if any (WebCallState.acceptedBy once in a call).
    var talker: () -> String? = { nil }

    /// The viewer that talks: the newest one of `talker`'s.
    static func talkingViewer(order: [String], clients: [String: String], talker: String?) -> String? {
        guard let talker else { return nil }
        return order.last { clients[$0] == talker }
    }

    private func updateTalker() {
        let chosen = Self.talkingViewer(order: order, clients: clients, talker: talker())
        for (id, viewer) in viewers { viewer.setTalking(id == chosen) }
    }

    init(answerer: Answerer) { self.answerer = answerer }

    /// The answerer's events: the tap follows the call.
    func event(_ event: CallEvent) {
        switch event {
        case .mediaConnected(let callId, _), .accepted(let callId), .firstFrame(let callId, _):
            if tap?.callId != callId, let session = answerer.currentSession, session.callId == callId {
                endAll("a new call")
                tap = CallTap(session: session)
            }
        case .ended:
            endAll("the call ended")
            return
        default: break
        }
        switch event {
        case .accepted:
            // The door's voice reaches the viewers from now on (silence before, as on the speaker).
            tap?.setAudioOpen(true)
            updateTalker()
        default: break
        }
    }

    func offer(_ sdp: String, client: String, reply: @escaping (WebAPI.MediaReply) -> Void) {
        guard let tap, let session = answerer.currentSession, session.callId == tap.callId else {
            return reply(.refused(status: 409, message: "no call media yet; try again when it rings"))
        }
        guard tap.caps(for: "video") != nil || tap.caps(for: "audio") != nil else {
            return reply(.refused(status: 409, message: "the door's media have not started yet; try again"))
        }
        guard viewers.count + waits.count < Self.maximumViewers else {
            return reply(.refused(status: 503, message: "\(Self.maximumViewers) browsers are watching already"))
        }
        var random = SystemRandomNumberGenerator()
        let id = String(random.next() as UInt64, radix: 16)
        // The door's audio often flows first: answered now, the browser would get no video for the whole call.
        let wait = PolledWait(timeout: Self.videoWait, ready: { !tap.expectsVideo || tap.caps(for: "video") != nil }) { [weak self] outcome in
            guard let self else { return reply(.refused(status: 409, message: "the answerer is stopping")) }
            self.waits[id] = nil
            switch outcome {
            case .cancelled(let reason):
                reply(.refused(status: 409, message: "no call media: \(reason)"))
            case .ready, .timedOut:
                guard self.tap === tap else { return reply(.refused(status: 409, message: "no call media: the call ended")) }
                if outcome == .timedOut { Log.app.warning("the door's video did not come within \(Self.videoWait) s: \(client) gets the call's audio only") }
                self.watch(sdp, id: id, client: client, tap: tap, reply: reply)
            }
        }
        if wait.isWaiting { waits[id] = (client, wait) }
    }

    private func watch(_ sdp: String, id: String, client: String, tap: CallTap, reply: @escaping (WebAPI.MediaReply) -> Void) {
        let viewer: BrowserViewer
        do {
            viewer = try BrowserViewer(id: id, offer: sdp, tap: tap, ice: answerer.options.media.ice)
        } catch let refusal as WHEPOffer.Refusal {
            return reply(.refused(status: 400, message: refusal.description))
        } catch {
            return reply(.refused(status: 500, message: "\(error)"))
        }
        viewers[id] = viewer
        clients[id] = client
        order.append(id)
        viewer.onClosed = { [weak self] _ in
            guard let self else { return }
            self.viewers[id] = nil
            self.clients[id] = nil
            self.order.removeAll { $0 == id }
            self.updateTalker()
        }
        Log.app.info("\(client) watches call \(tap.callId) (viewer \(id), \(viewers.count) watching)")
        if let refusal = viewer.videoRefusal { Log.app.warning("viewer \(id) gets the call's audio only: \(refusal)") }
        viewer.start { [weak self] result in
            switch result {
            case .success(let answer):
                self?.updateTalker()
                reply(.answer(id: id, sdp: answer))
            case .failure(let error): reply(.refused(status: 400, message: "\(error)"))
            }
        }
    }

    func delete(_ id: String) -> Bool {
        guard let viewer = viewers[id] else { return false }
        viewer.close("the page ended it")
        return true
    }

    /// The page of `client` went away (its last event stream closed): its viewers end.
    func clientGone(_ client: String) {
        for (id, owner) in clients where owner == client { viewers[id]?.close("the page went away") }
        for (_, pending) in waits where pending.client == client { pending.wait.cancel("the page went away") }
    }

    private func endAll(_ reason: String) {
        let pending = waits.values
        waits.removeAll()
        for entry in pending { entry.wait.cancel(reason) }
        for viewer in viewers.values { viewer.close(reason) }
        viewers.removeAll()
        clients.removeAll()
        order.removeAll()
        tap?.stop()
        tap = nil
    }
}
