import Foundation
import Glibc
import XCTest
@testable import C1nkGLib
@testable import C1nkSIP

/// A real kamailio on loopback as the registrar and proxy, for one test:
/// REGISTER is digest-challenged (any user, one password, realm 127.0.0.1),
/// INVITE from `door` is proxy-challenged too, then routed to the callee's
/// registered contact. Ended by its process id (`stop()`, `deinit`); it
/// ends its own children.
final class KamailioRegistrar {
    static let binary = "/usr/sbin/kamailio"
    static let modules = "/usr/lib/x86_64-linux-gnu/kamailio/modules"
    static let password = "door-s3cret"

    let directory: String
    let port: Int
    var uri: String { "sip:127.0.0.1:\(port)" }
    var logPath: String { directory + "/kamailio.log" }
    var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }
    private var process: Process?

    struct Missing: Error, CustomStringConvertible {
        let description = "kamailio is not installed: install kamailio (scripts/install-deps)"
    }

    /// `port`: a given one (a registrar that comes up where the bridge already looks), or a free one.
    init(port given: Int? = nil) throws {
        guard FileManager.default.isExecutableFile(atPath: Self.binary),
              FileManager.default.fileExists(atPath: Self.modules + "/registrar.so") else { throw Missing() }
        directory = temporaryDirectory()
        guard let port = given ?? RTPPortPair.find(on: "127.0.0.1") else { throw XCTSkip("no free loopback UDP port for kamailio") }
        self.port = port
        let config = """
        #!KAMAILIO
        debug=2
        log_stderror=yes
        children=1
        disable_tcp=yes
        disable_sctp=yes
        auto_aliases=no
        listen=udp:127.0.0.1:\(port)
        mpath="\(Self.modules)/"
        loadmodule "sl.so"
        loadmodule "tm.so"
        loadmodule "pv.so"
        loadmodule "xlog.so"
        loadmodule "textops.so"
        loadmodule "siputils.so"
        loadmodule "usrloc.so"
        loadmodule "registrar.so"
        loadmodule "auth.so"
        modparam("usrloc", "db_mode", 0)
        modparam("registrar", "max_expires", 120)
        modparam("registrar", "min_expires", 2)
        request_route {
            if (is_method("REGISTER")) {
                if (!pv_www_authenticate("$td", "\(Self.password)", "0")) {
                    www_challenge("$td", "0");
                    exit;
                }
                xlog("L_NOTICE", "registered $tu\\n");
                save("location");
                exit;
            }
            if (is_method("INVITE") && $fU == "door" && !has_totag()) {
                if (!pv_proxy_authenticate("$fd", "\(Self.password)", "0")) {
                    proxy_challenge("$fd", "0");
                    exit;
                }
                consume_credentials();
                if (!lookup("location")) {
                    sl_send_reply("404", "Not Found");
                    exit;
                }
            }
            t_relay();
        }
        """
        try config.write(toFile: directory + "/kamailio.cfg", atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.binary)
        process.arguments = ["-f", directory + "/kamailio.cfg", "-DD", "-E", "-Y", directory, "-P", directory + "/kamailio.pid"]
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        process.standardOutput = FileHandle(forWritingAtPath: logPath)
        process.standardError = FileHandle(forWritingAtPath: logPath)
        process.standardInput = FileHandle.nullDevice
        try process.run()
        self.process = process
        // Its socket is bound once it has sized its buffer (stderr; the "Listening on" lines are on a buffered stdout).
        guard MainContext.run(timeout: 20, until: { self.log.contains("SO_RCVBUF is finally") || !process.isRunning }),
              process.isRunning else {
            throw XCTSkip("kamailio did not start on port \(port): \(log.suffix(2000))")
        }
    }

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
