import Foundation
import Glibc
import XCTest
@testable import C1nkGLib

/// SIPp (sip-tester) sending the bridge what it must survive, `calls` times
/// at `rate` per second: a datagram that is not SIP, a 200 OK for a call the
/// bridge never placed, an INVITE without Via or CSeq, and an INVITE from
/// outside, which must be answered 403 (then ACKed). Run to its end by the
/// test, killed by its process id if it overruns.
final class SIPpFlood {
    static let binary = "/usr/bin/sipp"

    /// `[branch-3]` in the ACK: the INVITE's branch, three scenario steps back (a 403 is ACKed in its transaction).
    static let scenario = """
    <?xml version="1.0" encoding="ISO-8859-1" ?>
    <scenario name="c1nk bridge bad input">
      <send><![CDATA[

    this is not SIP at all [call_id]
    ]]></send>
      <send><![CDATA[

    SIP/2.0 200 OK
    Via: SIP/2.0/[transport] [remote_ip]:[remote_port];branch=z9hG4bKnever[call_number]
    From: <sip:door@[remote_ip]>;tag=never
    To: <sip:phone@[local_ip]>;tag=stray
    Call-ID: never-placed-[call_id]
    CSeq: 1 INVITE
    Contact: <sip:phone@[local_ip]:[local_port]>
    Content-Length: 0

    ]]></send>
      <send><![CDATA[

    INVITE sip:door@[remote_ip]:[remote_port] SIP/2.0
    From: <sip:broken@[local_ip]>;tag=b[call_number]
    To: <sip:door@[remote_ip]:[remote_port]>
    Call-ID: broken-[call_id]
    Content-Length: 0

    ]]></send>
      <send retrans="500"><![CDATA[

    INVITE sip:door@[remote_ip]:[remote_port] SIP/2.0
    Via: SIP/2.0/[transport] [local_ip]:[local_port];branch=[branch]
    From: <sip:intruder@[local_ip]:[local_port]>;tag=[pid]t[call_number]
    To: <sip:door@[remote_ip]:[remote_port]>
    Call-ID: [call_id]
    CSeq: 1 INVITE
    Contact: <sip:intruder@[local_ip]:[local_port]>
    Max-Forwards: 70
    Content-Type: application/sdp
    Content-Length: [len]

    v=0
    o=- 1 1 IN IP4 [local_ip]
    s=-
    c=IN IP4 [local_ip]
    t=0 0
    m=audio [media_port] RTP/AVP 0
    ]]></send>
      <recv response="100" optional="true"/>
      <recv response="403"/>
      <send><![CDATA[

    ACK sip:door@[remote_ip]:[remote_port] SIP/2.0
    Via: SIP/2.0/[transport] [local_ip]:[local_port];branch=[branch-3]
    From: <sip:intruder@[local_ip]:[local_port]>;tag=[pid]t[call_number]
    To: <sip:door@[remote_ip]:[remote_port]>[peer_tag_param]
    Call-ID: [call_id]
    CSeq: 1 ACK
    Max-Forwards: 70
    Content-Length: 0

    ]]></send>
    </scenario>
    """

    let directory: String
    private(set) var process: Process?
    var output: String { (try? String(contentsOfFile: directory + "/sipp.log", encoding: .utf8)) ?? "" }
    var errors: String { (try? String(contentsOfFile: directory + "/errors.log", encoding: .utf8)) ?? "" }

    struct Missing: Error, CustomStringConvertible {
        let description = "SIPp is not installed: install sip-tester (scripts/install-deps)"
    }

    /// Starts SIPp against `target` ("127.0.0.1:5060") from a free port of its own.
    init(target: String, calls: Int, rate: Int) throws {
        guard FileManager.default.isExecutableFile(atPath: Self.binary) else { throw Missing() }
        directory = temporaryDirectory()
        try Self.scenario.write(toFile: directory + "/bad-input.xml", atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.binary)
        process.arguments = ["-sf", directory + "/bad-input.xml", "-m", String(calls), "-r", String(rate),
                             "-i", "127.0.0.1", "-p", "0", "-t", "u1", "-nostdin", "-timeout", "30s", "-timeout_error",
                             "-trace_err", "-error_file", directory + "/errors.log", target]
        _ = FileManager.default.createFile(atPath: directory + "/sipp.log", contents: nil)
        process.standardOutput = FileHandle(forWritingAtPath: directory + "/sipp.log")
        process.standardError = FileHandle(forWritingAtPath: directory + "/sipp.log")
        process.standardInput = FileHandle.nullDevice
        try process.run()
        self.process = process
    }

    /// Waits (iterating the main context, where the bridge answers) until SIPp exits; its exit status.
    func wait(timeout: Double) -> Int32? {
        guard let process else { return nil }
        guard MainContext.run(timeout: timeout, until: { !process.isRunning }) else { return nil }
        return process.terminationStatus
    }

    func stop() {
        guard let process else { return }
        self.process = nil
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(atPath: directory)
    }
}
