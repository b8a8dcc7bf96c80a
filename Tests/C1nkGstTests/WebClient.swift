import Foundation
import Glibc
@testable import C1nkGLib

/// HTTP requests to the web page's server with `curl` (a real client over
/// real TLS), each waited for while the main context runs, where the
/// in-process door and signaling server live.
struct WebClient {
    struct Reply {
        var status: Int
        var headers: [String: String]
        var body: String
        var json: [String: Any] { (try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [String: Any] ?? [:] }
    }

    let base: String
    var cookie: String?
    var csrf: String?
    var token: String?
    /// The local address to send from (a loopback address 127.0.0.N: another peer), or nil.
    var from: String?

    init(port: UInt16, scheme: String = "https", from: String? = nil) {
        base = "\(scheme)://127.0.0.1:\(port)"
        self.from = from
    }

    /// A free TCP port (bound on every interface, then released), below
    /// Linux's ephemeral range (32768–60999): one the kernel gave out, bound
    /// then released, was now and then taken by another process's outgoing
    /// connection before the answerer bound it.
    static func freePort() -> UInt16 {
        for _ in 0..<200 {
            let port = UInt16.random(in: 20_000..<32_000)
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            defer { close(fd) }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = INADDR_ANY
            address.sin_port = port.bigEndian
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            if bound == 0 { return port }
        }
        return 0
    }

    func request(_ method: String, _ path: String, json: [String: Any]? = nil, bodyFile: String? = nil,
                 headers extra: [String] = [], csrf sendCSRF: Bool = true, asIs: Bool = false) -> Reply {
        let directory = temporaryDirectory()
        var arguments = ["-sk", "-X", method, "-D", directory + "/headers", "-o", directory + "/body", "-w", "%{http_code}",
                         "--max-time", "10"]
        if asIs { arguments.append("--path-as-is") }
        if let from { arguments += ["--interface", from] }
        if let cookie { arguments += ["-H", "Cookie: c1nk_session=" + cookie] }
        if let token { arguments += ["-H", "Authorization: Bearer " + token] }
        if sendCSRF, let csrf { arguments += ["-H", "X-CSRF-Token: " + csrf] }
        for header in extra { arguments += ["-H", header] }
        if let json {
            let data = try! JSONSerialization.data(withJSONObject: json)
            try! data.write(to: URL(fileURLWithPath: directory + "/request"))
            arguments += ["-H", "Content-Type: application/json", "--data-binary", "@" + directory + "/request"]
        } else if let bodyFile {
            arguments += ["--data-binary", "@" + bodyFile]
        }
        arguments.append(base + path)
        let out = run(arguments)
        var headers: [String: String] = [:]
        let headerText = (try? String(contentsOfFile: directory + "/headers", encoding: .utf8)) ?? ""
        for line in headerText.split(separator: "\r\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            headers[name] = headers[name].map { $0 + "\n" + value } ?? value
        }
        let body = (try? String(contentsOfFile: directory + "/body", encoding: .utf8)) ?? ""
        return Reply(status: Int(out) ?? 0, headers: headers, body: body)
    }

    /// Logs in; the session's cookie and CSRF token kept.
    mutating func login(_ password: String) -> Reply {
        let reply = request("POST", "/api/login", json: ["password": password])
        if let setCookie = reply.headers["set-cookie"], let range = setCookie.range(of: "c1nk_session=") {
            cookie = String(setCookie[range.upperBound...].prefix { $0 != ";" })
        }
        csrf = reply.json["csrf"] as? String
        return reply
    }

    /// `curl -N` on the event stream in the background, into a file.
    func events(into path: String) throws -> Process {
        var arguments = ["-skN", "--max-time", "60", "-o", path]
        if let from { arguments += ["--interface", from] }
        if let cookie { arguments += ["-H", "Cookie: c1nk_session=" + cookie] }
        if let token { arguments += ["-H", "Authorization: Bearer " + token] }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments = arguments + [base + "/api/events"]
        try process.run()
        return process
    }

    private func run(_ arguments: [String]) -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        try! process.run()
        _ = MainContext.run(timeout: 15) { !process.isRunning }
        return String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    }
}
