import C1nkGLib
import C1nkProtocol
import FoundationEssentials
import Glibc

/// A door panel that is a real browser: headless Chromium (libwebrtc, as the
/// C1nk service tests its doors) running `BrowserDoorPage` against the local
/// server. It adapts to congestion feedback as browsers do, which the
/// simulated door does not. Tests and the benchmark use it.
///
/// Lives on the main context; the browser's console reaches it through a
/// pipe watched there.
public final class BrowserDoor {
    public struct Options {
        public var serverURL: String
        public var width = 640
        public var height = 480
        public var framesPerSecond = 30
        /// "vp8" or "h264".
        public var codec = "vp8"
        public var doorName = "Prehliadač"
        public var ringOnConnect = true
        /// The repair streams the door offers (a browser offers all three).
        public var repair = "rtx,red,ulpfec"
        public init(serverURL: String) { self.serverURL = serverURL }
    }

    /// The video sender's statistics, once a second (WebRTC `getStats`).
    public struct Stats: Decodable, Sendable {
        /// Frames the canvas drew (the last stamped sequence number).
        public var drawn: Int?
        /// Frames drawn since the first one was sent that the encoder did not
        /// send (it lowers its frame rate to fit its target).
        public var skipped: Int?
        public var framesSent: Int?
        public var framesEncoded: Int?
        public var bytesSent: Int?
        public var retransmittedPacketsSent: Int?
        public var nackCount: Int?
        public var pliCount: Int?
        public var firCount: Int?
        /// The encoder's target (bit/s).
        public var targetBitrate: Double?
        /// The browser's bandwidth estimate (bit/s).
        public var availableOutgoingBitrate: Double?
        public var framesPerSecond: Double?
        public var frameWidth: Int?
        public var frameHeight: Int?
        /// When it arrived (monotonic seconds).
        public var time = 0.0

        enum CodingKeys: String, CodingKey {
            case drawn, skipped, framesSent, framesEncoded, bytesSent, retransmittedPacketsSent, nackCount, pliCount, firCount
            case targetBitrate, availableOutgoingBitrate, framesPerSecond, frameWidth, frameHeight
        }
    }

    public enum Event: Equatable {
        case ready
        case rang(callId: String)
        case connection(state: String)
        case accepted
        case callEnded(reason: String)
        case disconnected
        case error(String)
    }

    public var onEvent: ((Event) -> Void)?
    public private(set) var stats: [Stats] = []
    public private(set) var isReady = false

    private let options: Options
    private let log = Log.door
    private var process: ChildProcess?
    private var output: FileDescriptorWatch?
    private var pending = Data()
    private let profile: String

    /// The browser's executable, or nil when none is installed.
    public static var executable: String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for name in ["chromium", "chromium-browser", "google-chrome"] {
            for folder in path.split(separator: ":") where FileManager.default.isExecutableFile(atPath: "\(folder)/\(name)") {
                return "\(folder)/\(name)"
            }
        }
        return nil
    }

    public init(_ options: Options) {
        self.options = options
        profile = temporaryFolder() + "c1nk-browser-door-" + UUID().uuidString.prefix(8)
    }

    deinit { stop() }

    /// Starts the browser; `.ready` follows once the page said hello.
    public func start() throws {
        guard let executable = Self.executable else {
            throw BrowserDoorError("headless Chromium is not installed: apt-get install chromium")
        }
        try FileManager.default.createDirectory(atPath: profile, withIntermediateDirectories: true)
        let page = profile + "/door.html"
        try BrowserDoorPage.html.write(toFile: page, atomically: true, encoding: .utf8)
        var query = URLComponents()
        query.queryItems = [
            URLQueryItem(name: "server", value: options.serverURL),
            URLQueryItem(name: "width", value: String(options.width)),
            URLQueryItem(name: "height", value: String(options.height)),
            URLQueryItem(name: "fps", value: String(options.framesPerSecond)),
            URLQueryItem(name: "codec", value: options.codec),
            URLQueryItem(name: "name", value: options.doorName),
            URLQueryItem(name: "ring", value: options.ringOnConnect ? "1" : "0"),
            URLQueryItem(name: "repair", value: options.repair),
            URLQueryItem(name: "monotonic-offset", value: String(printf: "%.3f", Self.realtimeMinusMonotonicMilliseconds())),
        ]
        let process = try ChildProcess(executable, Self.flags(profile: profile) + ["file://" + page + "?" + (query.percentEncodedQuery ?? "")],
                                       input: .null, output: .null, error: .pipe)
        self.process = process
        guard let fd = process.errorPipe else { return }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        output = FileDescriptorWatch(fd: fd, .readable) { [weak self] _ in
            self?.readConsole(fd) ?? false
        }
    }

    /// Ends the browser (its whole process group) and removes its profile.
    public func stop() {
        output = nil
        if let process, process.isRunning {
            // Its process group (ChildProcess starts each child in one of its
            // own), so that its renderer and helpers end with it.
            let pid = process.processIdentifier
            if kill(-pid, SIGTERM) != 0 { kill(pid, SIGTERM) }
            let deadline = MainContext.monotonicSeconds() + 5
            while process.isRunning && MainContext.monotonicSeconds() < deadline { usleep(20_000) }
            if process.isRunning, kill(-pid, SIGKILL) != 0 { kill(pid, SIGKILL) }
            process.waitUntilExit()
        }
        process = nil
        try? FileManager.default.removeItem(atPath: profile)
    }

    /// Flags for a browser with no display, no GPU and no sandbox (CI runs as root).
    static func flags(profile: String) -> [String] {
        ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
         "--user-data-dir=" + profile, "--allow-loopback-in-peer-connection",
         "--disable-features=WebRtcHideLocalIpsWithMdns", "--autoplay-policy=no-user-gesture-required",
         "--disable-background-timer-throttling", "--disable-renderer-backgrounding",
         "--enable-logging=stderr", "--v=0"]
    }

    static func realtimeMinusMonotonicMilliseconds() -> Double {
        var real = timespec()
        var monotonic = timespec()
        clock_gettime(CLOCK_REALTIME, &real)
        clock_gettime(CLOCK_MONOTONIC, &monotonic)
        return Double(real.tv_sec - monotonic.tv_sec) * 1000 + Double(real.tv_nsec - monotonic.tv_nsec) / 1_000_000
    }

    // MARK: - The console

    private func readConsole(_ fd: Int32) -> Bool {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = read(fd, &buffer, buffer.count)
            if count == 0 { return false }
            guard count > 0 else { return errno == EAGAIN || errno == EINTR }
            pending.append(contentsOf: buffer[0..<count])
            while let newline = pending.firstIndex(of: 10) {
                let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
                pending.removeSubrange(pending.startIndex...newline)
                consoleLine(line)
            }
        }
    }

    /// `[…:INFO:CONSOLE(12)] "c1nk-door {…}", source: file:///… (12)`
    private func consoleLine(_ line: String) {
        for (marker, handle) in [("\"c1nk-door-stats ", statsLine), ("\"c1nk-door ", eventLine)] {
            guard let start = line.firstRange(of: marker) else { continue }
            let end = line.ranges(of: "\", source:").last?.lowerBound ?? line.endIndex
            guard start.upperBound < end else { return }
            handle(Data(line[start.upperBound..<end].utf8))
            return
        }
    }

    private func statsLine(_ json: Data) {
        guard var figures = try? JSONDecoder().decode(Stats.self, from: json) else { return }
        figures.time = MainContext.monotonicSeconds()
        stats.append(figures)
    }

    private func eventLine(_ json: Data) {
        guard let object = JSONValue.object(in: json),
              let name = object["event"] as? String else { return }
        let event: Event?
        switch name {
        case "ready": isReady = true; event = .ready
        case "rang": event = .rang(callId: object["callId"] as? String ?? "")
        case "connection": event = .connection(state: object["state"] as? String ?? "")
        case "accepted": event = .accepted
        case "call-ended": event = .callEnded(reason: object["reason"] as? String ?? "")
        case "disconnected": isReady = false; event = .disconnected
        case "error": event = .error(object["message"] as? String ?? "")
        default: event = nil
        }
        if let event {
            log.debug("browser door: \(event)")
            onEvent?(event)
        }
    }
}

public struct BrowserDoorError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
