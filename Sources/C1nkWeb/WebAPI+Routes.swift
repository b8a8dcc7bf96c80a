import C1nkGLibBase
import FoundationEssentials

extension WebAPI {
    func route(_ request: HTTPRequest, client: Client, credentials: WebCredentials) -> Reply {
        switch (request.method, request.path) {
        case ("GET", "/api/session"):
            if case .session(let session) = client { return .response(Self.json(200, ["ok": true, "csrf": session.csrf])) }
            return .response(Self.json(200, ["ok": true]))
        case ("POST", "/api/logout"):
            if let token = credentials.session { sessions.remove(token) }
            onLogout?(client.id)
            var response = Self.json(200, ["ok": true])
            response.headers.append(("Set-Cookie", WebCredentials.clearCookie))
            return .response(response)
        case ("GET", "/api/state"): return .response(Self.json(200, state.json.merging(["viewers": viewerCount()]) { own, _ in own }))
        case ("GET", "/api/calls"):
            // The folders are read off the main context; the rings are taken once they are.
            return .deferred { [self] answer in
                configuration.recordings.list { answer(Self.json(200, ["rings": self.rings.json, "recordings": WebRecordings.json($0)])) }
            }
        case ("GET", "/api/events"):
            if case .session(let session) = client { return .events(client: client.id, session: session.token) }
            return .events(client: client.id, session: nil)
        case ("POST", "/api/command"): return .response(runCommand(request, client: client))
        case ("POST", "/api/whep"):
            guard whep != nil else { return .response(Self.error(404, "this answerer sends no media to the page")) }
            guard (request.header("content-type") ?? "").lowercased().hasPrefix("application/sdp"),
                  let offer = String(validating: request.body, as: UTF8.self), !offer.isEmpty else {
                return .response(Self.error(400, "send the SDP offer as application/sdp"))
            }
            if case .session(let session) = client { noteMediaSession(client: client.id, token: session.token) }
            return .whep(offer: offer, client: client.id)
        case ("DELETE", let path) where path.hasPrefix("/api/whep/"):
            let id = String(path.dropFirst("/api/whep/".count))
            guard whepDelete?(id) == true else { return .response(Self.error(404, "no such viewer")) }
            return .response(Self.json(200, ["ok": true]))
        case ("GET", let path) where path.hasPrefix("/api/recordings/"):
            return recording(String(path.dropFirst("/api/recordings/".count)), range: request.header("range"))
        case ("GET", let path) where path.hasPrefix("/api/snapshots/"):
            return snapshot(String(path.dropFirst("/api/snapshots/".count)))
        case (_, "/api/state"), (_, "/api/calls"), (_, "/api/events"), (_, "/api/command"), (_, "/api/session"), (_, "/api/logout"):
            return .response(Self.error(405, "method \(request.method) is not allowed here"))
        default:
            return .response(Self.error(404, "no such API: \(request.path)"))
        }
    }

    /// `{"command": "accept"}`: the same words as standard input and the control socket.
    private func runCommand(_ request: HTTPRequest, client: Client) -> HTTPResponse {
        guard let object = Self.jsonObject(request.body), let line = object["command"] as? String,
              line.utf8.count <= 64 else {
            return Self.error(400, "send {\"command\": \"accept\"} (accept, reject, open, hangup, mute or unmute)")
        }
        let word = line.trimmingWhitespace().lowercased()
        let accepting = word == "accept" || word == "a"
        if accepting {
            guard state.phase == .ringing else {
                if state.phase == .call { return Self.error(409, WebCallState.answeredElsewhere, ["answeredElsewhere": true]) }
                return Self.error(409, "no call is ringing")
            }
            guard state.claimAccept(by: client.id) else {
                return Self.error(409, WebCallState.answeredElsewhere, ["answeredElsewhere": true])
            }
        }
        if let problem = command(word) {
            if accepting { state.releaseAccept() }
            let status = problem.hasPrefix("unknown command") ? 400 : 409
            return Self.error(status, problem)
        }
        if word == "mute" || word == "m" { state.setMuted(true) }
        if word == "unmute" || word == "u" { state.setMuted(false) }
        Log.web.info("\(client.id) sent \(word)")
        return Self.json(200, ["ok": true])
    }

    /// A recording, streamed from disk; `Range` lets the page's player seek.
    /// `NAME` is its path below the recordings' root (`2026/12/abc.mkv`),
    /// percent-encoded whole or per component; it is checked off the main context.
    private func recording(_ encodedName: String, range: String?) -> Reply {
        let missing = Self.error(404, "no such recording")
        guard let name = WebPath.percentDecoded(encodedName) else { return .response(missing) }
        let recordings = configuration.recordings
        return .later { reply in
            recordings.path(of: name) { path in
                guard let path else { return reply(.response(missing)) }
                let file = name.lastPathComponent
                reply(.file(path: path, headers: [("Content-Type", WebPath.contentType(name)),
                                                  ("Content-Disposition", "inline; filename=\"\(file)\"")], range: range, missing: missing))
            }
        }
    }

    /// A visitor's snapshot, by the file name `/api/calls` gives a ring.
    private func snapshot(_ encodedName: String) -> Reply {
        let missing = Self.error(404, "no such snapshot")
        guard let name = WebPath.percentDecoded(encodedName), let path = rings.snapshotPath(named: name) else { return .response(missing) }
        return .file(path: path, headers: [("Content-Type", "image/jpeg")], range: nil, missing: missing)
    }

    /// The page's own files, below the web root only.
    func staticFile(_ request: HTTPRequest) -> Reply {
        guard request.method == "GET" || request.method == "HEAD" else { return .response(withSecurity(Self.error(405, "use GET"))) }
        guard let relative = WebPath.resolve(request.path) else {
            Log.web.warning("refused the path \(request.path) from \(request.peer)")
            return .response(withSecurity(Self.error(400, "bad path")))
        }
        let path = configuration.root + "/" + relative
        var isFolder = false
        let missing = withSecurity(Self.error(404, "not found"))
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), !isFolder else { return .response(missing) }
        return .file(path: path, headers: withSecurity(HTTPResponse(status: 200, headers: [("Content-Type", WebPath.contentType(relative)),
                                                                                          ("Cache-Control", "no-cache")])).headers,
                     range: request.header("range"), missing: missing)
    }

    private func withSecurity(_ response: HTTPResponse) -> HTTPResponse {
        var response = response
        response.headers += Self.securityHeaders
        return response
    }
}
