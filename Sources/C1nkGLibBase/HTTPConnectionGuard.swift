import CGLib
import Glibc

/// Holds `HTTPConnectionTable` to libsoup's connections: it learns of each
/// one (the first request of a connection is started at accept, before the
/// TLS handshake) and of each request's progress from the server's and the
/// messages' signals, closes a connection past the caps at once, and one
/// past its deadline on a sweep. Each socket is held (a reference) until it
/// is closed: a connection leaves the table when libsoup (or this) has
/// closed its socket — not when the socket is freed, because libsoup 3.2
/// never frees a connection whose TLS handshake failed.
final class HTTPConnectionGuard {
    private(set) var table: HTTPConnectionTable
    private let log: () -> Log
    private var sockets: [Int: UnsafeMutablePointer<GSocket>] = [:]
    private var sweep: GLibTimer?
    /// Connections refused at the caps, and closed past a deadline (for tests and the log).
    private(set) var refused = 0
    private(set) var timedOut = 0
    private var lastRefusalLog = -Double.infinity
    private var refusedSinceLog = 0

    init(limits: HTTPConnectionTable.Limits, log: @escaping () -> Log) {
        table = HTTPConnectionTable(limits: limits)
        self.log = log
    }

    /// The server's `request-started`: a new connection, or a further request on one.
    func requestStarted(_ message: OpaquePointer) {
        guard let socket = soup_server_message_get_socket(message) else { return }
        let id = Int(bitPattern: socket)
        let now = MainContext.monotonicSeconds()
        if sockets[id] != nil {
            table.requestStarted(id, now: now)
        } else {
            // Those the peers closed since leave first: the caps count the open ones.
            reap()
            let peer = soup_server_message_get_remote_host(message).map { String(cString: $0) } ?? "?"
            if let refusal = table.open(id, peer: peer, now: now) {
                refuse(socket, peer: peer, refusal, now: now)
                return
            }
            g_object_ref(gpointer(socket))
            sockets[id] = socket
        }
        Self.attach(gpointer(message), "disconnected") { [weak self] in self?.reap() }
        Self.attach(gpointer(message), "got-headers") { [weak self] in self?.table.gotHeaders(id, now: MainContext.monotonicSeconds()) }
        Self.attach(gpointer(message), "got-body") { [weak self] in self?.table.gotBody(id) }
        Self.attach(gpointer(message), "finished") { [weak self] in
            self?.table.finished(id, now: MainContext.monotonicSeconds())
            // A connection that is not kept alive is closed just after its last answer.
            MainContext.post { [weak self] in self?.reap() }
        }
        if sweep == nil {
            sweep = GLibTimer(after: min(1, table.limits.headerTimeout / 3), repeats: true) { [weak self] in
                self?.reap()
                self?.closeOverdue()
            }
        }
    }

    /// Every connection closed (the server stopping).
    func stop() {
        sweep = nil
        for socket in sockets.values {
            Self.cut(socket)
            g_object_unref(gpointer(socket))
        }
        sockets.removeAll()
    }

    deinit { stop() }

    /// Shut down, then closed: the shutdown wakes a TLS handshake waiting
    /// on the socket in another thread (a close alone does not), the close
    /// makes the kernel answer anything more with a reset.
    static func cut(_ socket: UnsafeMutablePointer<GSocket>) {
        g_socket_shutdown(socket, 1, 1, nil)
        g_socket_close(socket, nil)
    }

    private func refuse(_ socket: UnsafeMutablePointer<GSocket>, peer: String, _ refusal: HTTPConnectionTable.Refusal, now: Double) {
        refused += 1
        refusedSinceLog += 1
        if now - lastRefusalLog >= 10 {
            let why = refusal == .full ? "\(table.limits.maximum) connections are open"
                : "\(table.limits.perAddress) connections from \(peer) are open"
            log().warning("refused a connection from \(peer): \(why) (\(refusedSinceLog) refused in the last 10 s)")
            lastRefusalLog = now
            refusedSinceLog = 0
        }
        Self.cut(socket)
    }

    private func closeOverdue() {
        for (id, peer, phase) in table.overdue(now: MainContext.monotonicSeconds()) {
            guard let socket = sockets[id] else { table.closed(id); continue }
            timedOut += 1
            let what: String
            switch phase {
            case .headers: what = "its TLS handshake or request headers did not complete within \(Int(table.limits.headerTimeout)) s"
            case .body: what = "its request body did not complete within \(Int(table.limits.headerTimeout)) s"
            case .idle: what = "it was idle \(Int(table.limits.idleTimeout)) s between requests"
            case .answering: continue
            }
            log().info("closed a connection from \(peer): \(what)")
            Self.cut(socket)
        }
        reap()
        if table.count == 0 { sweep = nil }
    }

    /// The connections whose socket is closed leave the table, and so do the
    /// idle ones the peer has closed: libsoup 3.2 notices that end only when
    /// it is a request's (it reads the end of a keep-alive connection and
    /// keeps the socket open, forever), so this closes them.
    private func reap() {
        for (id, socket) in sockets {
            if g_socket_is_closed(socket) == 0 {
                guard table.phase(id) == .idle, Self.peerClosed(socket) else { continue }
                Self.cut(socket)
            }
            sockets[id] = nil
            table.closed(id)
            g_object_unref(gpointer(socket))
        }
    }

    /// Whether the peer ended the connection (nothing left to read but the end).
    private static func peerClosed(_ socket: UnsafeMutablePointer<GSocket>) -> Bool {
        var byte: UInt8 = 0
        return recv(g_socket_get_fd(socket), &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT)) == 0
    }

    /// A handler for `void handler(GObject*, gpointer)` that lives as long as
    /// the instance (no reference taken: a message that never gets its
    /// headers is not kept alive by it).
    private static func attach(_ instance: gpointer, _ signal: String, _ handler: @escaping () -> Void) {
        typealias Thunk = @convention(c) (gpointer?, gpointer?) -> Void
        let thunk: Thunk = { _, data in Unmanaged<ClosureBox<() -> Void>>.fromOpaque(data!).takeUnretainedValue().value() }
        let box = Unmanaged.passRetained(ClosureBox(handler)).toOpaque()
        _ = c1nk_signal_connect(instance, signal, unsafeBitCast(thunk, to: gpointer.self), box, { data, _ in
            Unmanaged<ClosureBox<() -> Void>>.fromOpaque(data!).release()
        })
    }
}
