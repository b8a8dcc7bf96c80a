import Foundation
import Glibc
import XCTest
@testable import C1nkGLib
@testable import C1nkSIP

/// A real baresip on loopback as the phone, for one test: it answers every
/// call at once, plays a sine tone, and writes what it hears to a WAV file
/// (its sndfile module); its ctrl_tcp port takes commands (`hangUp()`).
/// Started by the test, ended by its process id (`stop()`, `deinit`).
final class BaresipPhone {
    static let binary = "/usr/bin/baresip"
    static let modules = "/usr/lib/baresip/modules"

    let directory: String
    let port: Int
    let controlPort: Int
    var uri: String { "sip:phone@127.0.0.1:\(port)" }
    var logPath: String { directory + "/baresip.log" }
    private var process: Process?

    struct Missing: Error, CustomStringConvertible {
        let description = "baresip is not installed: install baresip-core (scripts/install-deps)"
    }

    struct NotRegistered: Error, CustomStringConvertible {
        let description: String
    }

    /// `answerMode`: "auto" answers at once; "manual" rings until the call is cancelled.
    /// `registrar`: registers there as `phone` (digest), instead of being called directly.
    /// `codecs`: what its account offers and accepts (baresip's names: PCMU, PCMA, G722, opus).
    init(toneHz: Int = 880, answerMode: String = "auto", registrar: KamailioRegistrar? = nil, codecs: String = "PCMU,PCMA") throws {
        guard FileManager.default.isExecutableFile(atPath: Self.binary),
              FileManager.default.fileExists(atPath: Self.modules + "/sndfile.so") else { throw Missing() }
        directory = temporaryDirectory()
        guard let sip = RTPPortPair.find(on: "127.0.0.1"), let control = RTPPortPair.find(on: "127.0.0.1") else {
            throw XCTSkip("no free loopback ports for baresip")
        }
        port = sip
        controlPort = control + 1
        // net_interface 127.0.0.1: the SDP must name 127.0.0.1, not the machine's other address.
        let config = """
        sip_listen 127.0.0.1:\(port)
        net_interface 127.0.0.1
        audio_source ausine,\(toneHz)
        ausrc_srate 48000
        ausrc_channels 2
        audio_player aubridge,nowhere
        audio_alert aubridge,nowhere
        module_path \(Self.modules)
        module g711.so
        module g722.so
        module opus.so
        module ausine.so
        module aubridge.so
        module sndfile.so
        module account.so
        module menu.so
        module ctrl_tcp.so
        snd_path \(directory)
        ctrl_tcp_listen 127.0.0.1:\(controlPort)
        rtp_timeout 0
        """
        try config.write(toFile: directory + "/config", atomically: true, encoding: .utf8)
        let account = registrar.map { "<sip:phone@127.0.0.1:\($0.port)>;auth_pass=\(KamailioRegistrar.password);regint=60" }
            ?? "<sip:phone@127.0.0.1>;regint=0"
        try "\(account);answermode=\(answerMode);audio_codecs=\(codecs)\n"
            .write(toFile: directory + "/accounts", atomically: true, encoding: .utf8)
        try "".write(toFile: directory + "/contacts", atomically: true, encoding: .utf8)

        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.binary)
        process.arguments = ["-f", directory]
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        process.standardOutput = FileHandle(forWritingAtPath: logPath)
        process.standardError = FileHandle(forWritingAtPath: logPath)
        process.standardInput = FileHandle.nullDevice
        try process.run()
        self.process = process
        guard MainContext.run(timeout: 20, until: { self.log.contains("baresip is ready") || !process.isRunning }),
              process.isRunning else {
            throw XCTSkip("baresip did not start on port \(port): \(log.suffix(2000))")
        }
        if registrar != nil {
            guard MainContext.run(timeout: 20, until: { self.log.contains("200 OK") || !process.isRunning }) else {
                throw NotRegistered(description: "baresip did not register at kamailio: \(log.suffix(2000))")
            }
        }
    }

    var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    /// The WAV files sndfile wrote of what baresip decoded (heard from us).
    var heardFiles: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [])
            .filter { $0.hasPrefix("dump-") && $0.hasSuffix("-dec.wav") }.map { directory + "/" + $0 }
    }

    /// The largest absolute sample in the S16 WAV files of what baresip heard.
    func peakHeard() -> Int {
        heardFiles.map { path in
            guard let data = FileManager.default.contents(atPath: path),
                  let chunk = data.range(of: Data("data".utf8)) else { return 0 }
            let start = chunk.upperBound + 4
            guard start < data.count else { return 0 }
            return data[start...].withUnsafeBytes { bytes in
                var peak = 0
                for offset in stride(from: 0, to: bytes.count - 1, by: 2) {
                    peak = max(peak, abs(Int(bytes.loadUnaligned(fromByteOffset: offset, as: Int16.self))))
                }
                return peak
            }
        }.max() ?? 0
    }

    /// Asks baresip to hang up its call.
    func hangUp() throws { try command("hangup") }

    /// Has baresip press `key` in its call (an RFC 4733 telephone-event).
    func press(_ key: Character) throws { try command("sndcode", params: String(key)) }

    /// One of baresip's menu commands over ctrl_tcp (a netstring of JSON; `params` are test constants).
    func command(_ name: String, params: String = "") throws {
        let json = #"{"command":"\#(name)","params":"\#(params)","token":"t1"}"#
        let message = "\(json.utf8.count):\(json),"
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(UInt16(controlPort).bigEndian)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw XCTSkip("baresip's control port \(controlPort) refused: \(log.suffix(1000))") }
        _ = message.withCString { send(fd, $0, strlen($0), 0) }
        // Its reply says the command was taken: closing at once, on a busy machine, lost it now and then.
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var reply = [UInt8](repeating: 0, count: 512)
        _ = recv(fd, &reply, reply.count, 0)
    }

    /// Ends baresip by its process id (TERM, then KILL after 5 s).
    func stop() {
        guard let process else { return }
        self.process = nil
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGTERM)
        if !MainContext.run(timeout: 5, until: { !process.isRunning }) { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(atPath: directory)
    }
}
