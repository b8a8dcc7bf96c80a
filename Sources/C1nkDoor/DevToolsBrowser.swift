import C1nkGLib
import C1nkProtocol
import FoundationEssentials
import Glibc

/// Headless Chromium driven over the DevTools protocol (its WebSocket, with
/// libsoup's client on the main context): pages in separate browser
/// contexts (separate cookies, as separate phones), scripts evaluated in
/// them, screenshots. The flags are the browser door's (no display, no GPU).
/// The web page's tests and benchmark drive the real page with it.
public final class DevToolsBrowser {
    public final class Page {
        public let session: String
        public let target: String
        public unowned let browser: DevToolsBrowser
        init(session: String, target: String, browser: DevToolsBrowser) {
            self.session = session
            self.target = target
            self.browser = browser
        }

        /// Crashes the page's renderer: a browser that disappears, no unload handler run.
        public func crash() { browser.send("Page.crash", [:], session: session) }

        /// Closes the tab, as a phone whose page goes away.
        public func close() throws { _ = try browser.call("Target.closeTarget", ["targetId": target]) }

        /// The value of `expression` (promises awaited).
        @discardableResult
        public func evaluate(_ expression: String, timeout: Double = 10) throws -> Any? {
            let reply = try browser.call("Runtime.evaluate", ["expression": expression, "awaitPromise": true, "returnByValue": true],
                                         session: session, timeout: timeout)
            if let exception = reply["exceptionDetails"] as? [String: Any] {
                throw DevToolsError("the page threw: \(exception["text"] ?? "")\((exception["exception"] as? [String: Any])?["description"] ?? "")")
            }
            return (reply["result"] as? [String: Any])?["value"]
        }

        /// Starts `expression` without waiting for it.
        public func start(_ expression: String) { browser.send("Runtime.evaluate", ["expression": expression], session: session) }

        public func string(_ expression: String) -> String { ((try? evaluate(expression)) as? String) ?? "" }

        /// A PNG of the page.
        public func screenshot() throws -> Data {
            let reply = try browser.call("Page.captureScreenshot", ["format": "png"], session: session)
            return Data(base64Encoded: reply["data"] as? String ?? "") ?? Data()
        }
    }

    private var process: ChildProcess?
    private let profile = temporaryFolder() + "c1nk-devtools-" + UUID().uuidString.prefix(8)
    private var socket: WebSocketConnection?
    private var nextId = 0
    private var replies: [Int: [String: Any]] = [:]
    private let connector: WebSocketConnector
    private var forward: NamespaceForward?

    /// A browser; in `network`'s namespace when given (a phone on its own
    /// network), with DevTools reached through its loopback there.
    public init(extraFlags: [String] = [], network: PhoneNetwork? = nil) throws {
        guard let executable = BrowserDoor.executable else { throw DevToolsError("headless Chromium is not installed: apt-get install chromium") }
        try FileManager.default.createDirectory(atPath: profile, withIntermediateDirectories: true)
        connector = try WebSocketConnector(trustedCAFile: nil)
        let command = (network?.commandPrefix ?? []) + [executable]
        let arguments = Array(command.dropFirst()) + BrowserDoor.flags(profile: profile)
            + ["--remote-debugging-port=0", "--ignore-certificate-errors", "--window-size=800,1000",
               "--use-fake-device-for-media-stream", "--use-fake-ui-for-media-stream"] + extraFlags
            // More of Chromium's flags for an experiment (field trials, logging), space-separated.
            + (ProcessInfo.processInfo.environment["C1NK_CHROMIUM_FLAGS"]?.split(separator: " ").map(String.init) ?? [])
            + ["about:blank"]
        let log = profile + "/stderr"
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        process = try ChildProcess(command[0], arguments, input: .null, output: .null, error: .file(log))
        var url: String?
        _ = MainContext.run(timeout: 20) {
            let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            if let range = text.firstRange(of: "DevTools listening on ") {
                url = String(text[range.upperBound...].prefix { !$0.isNewline })
            }
            return url != nil || !(self.process?.isRunning ?? false)
        }
        guard var url else { stop(); throw DevToolsError("Chromium said no DevTools address") }
        if let network {
            guard let address = URLComponents(string: url), let port = address.port.flatMap({ UInt16(exactly: $0) }),
                  let forward = try? NamespaceForward(namespace: network.name, port: port) else {
                stop()
                throw DevToolsError("cannot reach DevTools in \(network.name)")
            }
            self.forward = forward
            url = url.replacing(":\(port)/", with: ":\(forward.port)/")
        }
        var result: Result<WebSocketConnection, GLibError>?
        connector.connect(to: url) { result = $0 }
        _ = MainContext.run(timeout: 10) { result != nil }
        guard case .success(let connection)? = result else { stop(); throw DevToolsError("cannot reach DevTools at \(url)") }
        connection.onText = { [weak self] text in self?.received(text) }
        socket = connection
    }

    deinit { stop() }

    /// A new page in a browser context of its own, at `url`.
    public func open(_ url: String, beforeLoad script: String? = nil) throws -> Page {
        let context = try call("Target.createBrowserContext", [:])["browserContextId"] as? String ?? ""
        let target = try call("Target.createTarget", ["url": "about:blank", "browserContextId": context])["targetId"] as? String ?? ""
        let session = try call("Target.attachToTarget", ["targetId": target, "flatten": true])["sessionId"] as? String ?? ""
        let page = Page(session: session, target: target, browser: self)
        _ = try call("Page.enable", [:], session: session)
        if let script { _ = try call("Page.addScriptToEvaluateOnNewDocument", ["source": script], session: session) }
        _ = try call("Browser.grantPermissions", ["permissions": ["notifications", "audioCapture"], "browserContextId": context,
                                                  "origin": Self.origin(url)])
        _ = try call("Page.navigate", ["url": url], session: session)
        return page
    }

    public func stop() {
        socket?.close()
        socket = nil
        forward?.stop()
        forward = nil
        if let process, process.isRunning {
            let pid = process.processIdentifier
            if kill(-pid, SIGTERM) != 0 { kill(pid, SIGTERM) }
            _ = MainContext.run(timeout: 5) { !process.isRunning }
            if process.isRunning { kill(-pid, SIGKILL); kill(pid, SIGKILL) }
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(atPath: profile)
    }

    @discardableResult
    public func send(_ method: String, _ params: [String: Any], session: String? = nil) -> Int {
        nextId += 1
        var message: [String: Any] = ["id": nextId, "method": method, "params": params]
        if let session { message["sessionId"] = session }
        let data = JSONValue.text(of: message)!
        socket?.send(String(decoding: data, as: UTF8.self))
        return nextId
    }

    public func call(_ method: String, _ params: [String: Any], session: String? = nil, timeout: Double = 10) throws -> [String: Any] {
        let id = send(method, params, session: session)
        _ = MainContext.run(timeout: timeout) { self.replies[id] != nil }
        guard let reply = replies.removeValue(forKey: id) else { throw DevToolsError("\(method): no reply in \(timeout) s") }
        if let error = reply["error"] as? [String: Any] { throw DevToolsError("\(method): \(error["message"] ?? error)") }
        return reply["result"] as? [String: Any] ?? [:]
    }

    private func received(_ text: String) {
        guard let object = JSONValue.object(in: Data(text.utf8)),
              let id = object["id"] as? Int else { return }
        replies[id] = object
    }

    public static func origin(_ url: String) -> String {
        guard let components = URLComponents(string: url), let scheme = components.scheme, let host = components.host else { return url }
        return "\(scheme)://\(host)" + (components.port.map { ":\($0)" } ?? "")
    }
}

public struct DevToolsError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
