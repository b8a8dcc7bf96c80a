import C1nkProtocol
import C1nkGLibBase
import FoundationEssentials
import Glibc

/// `--control PATH`: a Unix socket for home automation. Each client sends
/// JSON lines with the standard-input command words (`{"command":"open"}`)
/// and gets `{"ok":true}` or `{"ok":false,"error":…}` back; every client also
/// receives the events, one JSON object per line.
///
/// Nothing here blocks the main context: sockets are non-blocking, a line
/// longer than `maximumLine` or garbage gets an error (a line too long also
/// ends the connection), and a client whose unread output passes
/// `maximumBacklog` (it stopped reading) is dropped. The others are unaffected.
public final class ControlServer {
    public static let maximumLine = 64 * 1024
    public static let maximumBacklog = 1024 * 1024
    public static let maximumClients = 32

    public let path: String
    /// Runs one command word; returns an error text, or nil when done.
    public var onCommand: ((String) -> String?)?
    public var clientCount: Int { clients.count }
    /// Clients dropped so far (slow, or sending lines too long).
    public private(set) var droppedCount = 0

    private let listener: Int32
    private var acceptWatch: FileDescriptorWatch?
    private var clients: [Int32: Client] = [:]

    private final class Client {
        let fd: Int32
        var input: [UInt8] = []
        var output: [UInt8] = []
        var readWatch: FileDescriptorWatch?
        var writeWatch: FileDescriptorWatch?
        init(fd: Int32) { self.fd = fd }
    }

    /// Listens on `path` with `mode` (owner-only by default). An old socket
    /// at `path` is replaced; any other file there is an error.
    public init(path: String, mode: mode_t = 0o600) throws {
        self.path = path
        var info = stat()
        if lstat(path, &info) == 0 {
            guard info.st_mode & S_IFMT == S_IFSOCK else {
                throw ControlError("--control \(path): a file that is not a socket is in the way; choose another path")
            }
            unlink(path)
        }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            throw ControlError("--control \(path): the path is too long for a Unix socket (at most 107 bytes)")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in for (i, b) in bytes.enumerated() { raw[i] = b } }
        listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard listener >= 0 else { throw ControlError("--control: cannot make a socket: \(String(cString: strerror(errno)))") }
        // Owner-only from the start: no window in which others may connect.
        let oldMask = umask(~mode & 0o777)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        umask(oldMask)
        guard bound == 0, listen(listener, 16) == 0 else {
            let reason = String(cString: strerror(errno))
            close(listener)
            throw ControlError("--control \(path): cannot listen: \(reason); check that the folder exists and is writable")
        }
        chmod(path, mode)
        acceptWatch = FileDescriptorWatch(fd: listener, .readable) { [weak self] _ in
            self?.acceptClients()
            return true
        }
    }

    deinit { stop() }

    /// Closes every client and the socket, and removes the socket file.
    public func stop() {
        guard acceptWatch != nil else { return }
        acceptWatch = nil
        for fd in Array(clients.keys) { drop(fd, reason: nil) }
        close(listener)
        unlink(path)
    }

    /// Sends one event (a JSON object) to every client.
    public func broadcast(_ object: [String: Any]) {
        guard !clients.isEmpty, var data = JSONValue.text(of: object, sortedKeys: true, escapingSlashes: false) else { return }
        data.append(UInt8(ascii: "\n"))
        for client in Array(clients.values) { enqueue(Array(data), to: client) }
    }

    // MARK: - Clients

    private func acceptClients() {
        while true {
            let fd = accept(listener, nil, nil)
            guard fd >= 0 else { return }
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            let client = Client(fd: fd)
            clients[fd] = client
            if clients.count > Self.maximumClients {
                enqueue(Self.reply(error: "too many control clients (at most \(Self.maximumClients))"), to: client)
                drop(fd, reason: "too many clients")
                continue
            }
            client.readWatch = FileDescriptorWatch(fd: fd, .readable) { [weak self] _ in
                self?.read(fd) ?? false
            }
        }
    }

    /// Returns false when the client is gone.
    private func read(_ fd: Int32) -> Bool {
        guard let client = clients[fd] else { return false }
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
        if count < 0 && (errno == EAGAIN || errno == EINTR) { return true }
        if count <= 0 {
            drop(fd, reason: nil)
            return false
        }
        client.input.append(contentsOf: buffer[0..<count])
        while let newline = client.input.firstIndex(of: UInt8(ascii: "\n")) {
            let line = Array(client.input[..<newline])
            client.input.removeSubrange(...newline)
            guard line.count <= Self.maximumLine else { return tooLong(client) }
            enqueue(handle(line), to: client)
            guard clients[fd] != nil else { return false }
        }
        if client.input.count > Self.maximumLine { return tooLong(client) }
        return true
    }

    private func tooLong(_ client: Client) -> Bool {
        enqueue(Self.reply(error: "line longer than \(Self.maximumLine) bytes; send one JSON object per line such as {\"command\":\"open\"}"), to: client)
        flush(client)
        drop(client.fd, reason: "line too long")
        return false
    }

    private func handle(_ line: [UInt8]) -> [UInt8] {
        let text = String(decoding: line, as: UTF8.self).trimmingWhitespaceAndNewlines()
        if text.isEmpty { return [] }
        guard let command = JSONValue(text: Data(text.utf8))?.objectValue?["command"]?.stringValue else {
            return Self.reply(error: "expected one JSON object per line with a command, such as {\"command\":\"open\"}")
        }
        if let error = onCommand?(command) { return Self.reply(error: error) }
        return Self.reply(error: nil)
    }

    static func reply(error: String?) -> [UInt8] {
        let object: [String: Any] = error.map { ["ok": false, "error": $0] } ?? ["ok": true]
        var data = JSONValue.text(of: object, sortedKeys: true) ?? Data("{\"ok\":false}".utf8)
        data.append(UInt8(ascii: "\n"))
        return Array(data)
    }

    private func enqueue(_ bytes: [UInt8], to client: Client) {
        guard !bytes.isEmpty, clients[client.fd] != nil else { return }
        client.output += bytes
        flush(client)
        guard clients[client.fd] != nil else { return }
        if client.output.count > Self.maximumBacklog {
            drop(client.fd, reason: "it stopped reading (\(client.output.count) bytes unread)")
        } else if !client.output.isEmpty && client.writeWatch == nil {
            let fd = client.fd
            client.writeWatch = FileDescriptorWatch(fd: fd, .writable) { [weak self] _ in
                guard let self, let client = self.clients[fd] else { return false }
                self.flush(client)
                if client.output.isEmpty { client.writeWatch = nil; return false }
                return true
            }
        }
    }

    /// Writes what the socket takes now, never waiting.
    private func flush(_ client: Client) {
        while !client.output.isEmpty {
            let written = client.output.withUnsafeBytes { send(client.fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT)) }
            if written > 0 {
                client.output.removeFirst(written)
            } else {
                if written < 0 && errno != EAGAIN && errno != EINTR { drop(client.fd, reason: nil) }
                return
            }
        }
    }

    private func drop(_ fd: Int32, reason: String?) {
        guard let client = clients.removeValue(forKey: fd) else { return }
        if let reason {
            droppedCount += 1
            Log.app.info("control client dropped: \(reason)")
        }
        client.readWatch?.cancel()
        client.writeWatch?.cancel()
        close(fd)
    }
}

public struct ControlError: Error, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
