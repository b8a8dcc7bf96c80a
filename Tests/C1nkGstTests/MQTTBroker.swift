import Foundation
import Glibc
import XCTest
@testable import C1nkGLib
@testable import C1nkMQTT

/// A real `mosquitto` on a loopback port, with a password file, for one
/// test: started by the test, killed by its process id (`stop()`, `deinit`).
final class MQTTBroker {
    static let binary = "/usr/sbin/mosquitto"
    static let user = "c1nk"
    static let password = "door s3cret"

    let port: Int
    let directory: String
    private var process: Process?
    var logPath: String { directory + "/mosquitto.log" }

    /// `tls`: a certificate and key for 127.0.0.1; the listener is then mqtts only.
    init(tls: (certificate: String, key: String)? = nil) throws {
        guard FileManager.default.isExecutableFile(atPath: Self.binary),
              FileManager.default.isExecutableFile(atPath: "/usr/bin/mosquitto_passwd") else {
            throw XCTSkip("mosquitto is not installed (scripts/install-deps installs it)")
        }
        directory = temporaryDirectory()
        port = Self.freePort()
        let passwd = directory + "/passwd"
        let make = Process()
        make.executableURL = URL(fileURLWithPath: "/usr/bin/mosquitto_passwd")
        make.arguments = ["-c", "-b", passwd, Self.user, Self.password]
        make.standardOutput = FileHandle.nullDevice
        make.standardError = FileHandle.nullDevice
        try make.run()
        make.waitUntilExit()
        chmod(passwd, 0o600)
        let config = """
        listener \(port) 127.0.0.1
        allow_anonymous false
        \(tls.map { "certfile \($0.certificate)\nkeyfile \($0.key)" } ?? "")
        password_file \(passwd)
        persistence false
        user root
        log_dest stderr
        log_type error
        log_type warning
        """
        try config.write(toFile: directory + "/mosquitto.conf", atomically: true, encoding: .utf8)
        try start()
    }

    /// Starts the broker (again, on the same port) and waits until it listens.
    func start() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.binary)
        process.arguments = ["-c", directory + "/mosquitto.conf"]
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        process.standardOutput = FileHandle(forWritingAtPath: logPath)
        process.standardError = FileHandle(forWritingAtPath: logPath)
        try process.run()
        self.process = process
        let port = port
        guard MainContext.run(timeout: 10, until: { Self.accepts(port) || !process.isRunning }), process.isRunning else {
            let log = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
            throw XCTSkip("mosquitto did not start on port \(port): \(log)")
        }
    }

    /// Kills the broker by its process id, as a crash would.
    func stop() {
        guard let process, process.isRunning else { self.process = nil; return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        self.process = nil
    }

    deinit { stop() }

    func settings(clientId: String, user: String? = MQTTBroker.user, password: String? = MQTTBroker.password) -> MQTTSettings {
        var settings = MQTTSettings(host: "127.0.0.1", port: port, clientId: clientId)
        settings.user = user
        settings.password = password
        settings.initialBackoff = 0.5
        settings.maximumBackoff = 2
        return settings
    }

    /// A self-signed certificate for 127.0.0.1 (its own authority).
    static func makeCertificate() throws -> (certificate: String, key: String) { try TestCertificate.make() }

    private static func freePort() -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 ? getsockname(fd, $0, &length) : -1 }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    private static func accepts(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }
}

/// A second client on the broker that records everything under `#`, as Home Assistant would see it.
final class MQTTObserver {
    let client: MQTTClient
    private(set) var messages: [MQTTMessage] = []
    /// When each message arrived, in Unix milliseconds (as the events' `t`).
    private(set) var arrivals: [Int64] = []
    private(set) var statuses: [MQTTClient.Status] = []

    init(_ broker: MQTTBroker, clock: any TimerClock = GLibClock.shared) throws {
        client = try MQTTClient(settings: broker.settings(clientId: "observer-" + UUID().uuidString.prefix(6)), clock: clock)
        client.subscribe("#")
        client.onMessage = { [weak self] in
            self?.messages.append($0)
            self?.arrivals.append(MainContext.unixMilliseconds())
        }
        client.onStatus = { [weak self] in self?.statuses.append($0) }
        client.start()
        waitUntil("the observer connected") { self.client.isConnected }
    }

    func on(_ topic: String) -> [MQTTMessage] { messages.filter { $0.topic == topic } }

    func json(_ message: MQTTMessage) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(message.payload)) as? [String: Any]) ?? [:]
    }

    func text(_ message: MQTTMessage) -> String { String(decoding: message.payload, as: UTF8.self) }

    /// When the first message on `topic` that `matches` arrived.
    func arrival(_ topic: String, where matches: (MQTTMessage) -> Bool) -> Int64? {
        messages.indices.first { messages[$0].topic == topic && matches(messages[$0]) }.map { arrivals[$0] }
    }
}
