import C1nkGLib
import CGStreamer
import C1nkProbes
import C1nkSIP
import Foundation
import Glibc

/// The phone of `--sip`: the least of a SIP phone, on loopback UDP, in this
/// process so that its clock is the door's. It answers every INVITE at once
/// with 200 OK and PCMU, notes when each INVITE arrived, answers BYE, and
/// sends a key as SIP INFO. Its media: 1500 Hz bursts every 500 ms as PCMU
/// (onsets at its mouth), and what it hears decoded behind a 20 ms jitter
/// buffer (onsets at its ear). A measuring instrument, not a phone for users.
final class BenchPhone {
    let port: Int
    /// This call's RTP port, found afresh for each (the answerer may take a port this phone let go).
    private(set) var rtpPort = 0
    var uri: String { "sip:phone@127.0.0.1:\(port)" }
    /// When each INVITE arrived: (monotonic seconds, unix milliseconds).
    private(set) var invites: [(monotonic: Double, unix: Int64)] = []
    private(set) var mouth: AudioOnsetProbe?
    private(set) var ear: AudioOnsetProbe?
    private(set) var byes = 0

    private let fd: Int32
    private var watch: FileDescriptorWatch?
    private var media: Pipeline?
    /// The call in progress: the INVITE's dialog headers and where the answerer listens.
    private var dialog: (callID: String, from: String, to: String, contact: String, peer: sockaddr_in)?
    private var cseq = 1

    init() throws {
        guard let port = RTPPortPair.find(on: "127.0.0.1") else { throw BenchError("no free loopback UDP port for the bench phone") }
        self.port = port
        fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        var address = Self.address(port)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard fd >= 0, bound == 0 else { throw BenchError("the bench phone cannot bind UDP port \(port)") }
        watch = FileDescriptorWatch(fd: fd, .readable) { [weak self] _ in
            self?.receive()
            return true
        }
    }

    deinit {
        stopMedia()
        watch = nil
        close(fd)
    }

    /// Sends `key` in the call as SIP INFO (application/dtmf-relay).
    func press(_ key: Character) {
        guard let dialog else { return }
        cseq += 1
        let body = "Signal=\(key)\r\nDuration=160\r\n"
        let request = "INFO \(dialog.contact) SIP/2.0\r\n"
            + "Via: SIP/2.0/UDP 127.0.0.1:\(port);branch=z9hG4bK\(UInt32.random(in: 1...UInt32.max))\r\n"
            + "Max-Forwards: 70\r\nFrom: \(dialog.to)\r\nTo: \(dialog.from)\r\nCall-ID: \(dialog.callID)\r\n"
            + "CSeq: \(cseq) INFO\r\nContact: <\(uri)>\r\nContent-Type: application/dtmf-relay\r\n"
            + "Content-Length: \(body.utf8.count)\r\n\r\n" + body
        send(request, to: dialog.peer)
    }

    private func receive() {
        var buffer = [UInt8](repeating: 0, count: 16384)
        var peer = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let count = withUnsafeMutablePointer(to: &peer) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { recvfrom(fd, &buffer, buffer.count, 0, $0, &length) }
        }
        guard count > 0 else { return }
        let text = String(decoding: buffer.prefix(count), as: UTF8.self)
        let method = text.prefix { $0 != " " }
        switch method {
        case "INVITE":
            invites.append((MainContext.monotonicSeconds(), MainContext.unixMilliseconds()))
            answer(text, peer: peer)
        case "BYE":
            byes += 1
            respond(to: text, peer: peer)
            stopMedia()
            dialog = nil
        case "CANCEL", "OPTIONS", "INFO":
            respond(to: text, peer: peer)
        default:
            break   // ACK, and responses to our INFO
        }
    }

    private func answer(_ invite: String, peer: sockaddr_in) {
        let (head, body) = Self.split(invite)
        guard let remotePort = body.split(whereSeparator: \.isNewline).first(where: { $0.hasPrefix("m=audio ") })
            .flatMap({ Int($0.split(separator: " ")[1]) }) else { return }
        guard let port = RTPPortPair.find(on: "127.0.0.1") else { return }
        rtpPort = port
        let tag = "bench\(UInt32.random(in: 1...UInt32.max))"
        let to = (Self.header("To", in: head) ?? "") + ";tag=\(tag)"
        // The answerer's Contact URI, between its angle brackets when it has them.
        let contactValue = Self.header("Contact", in: head) ?? ""
        let contact = contactValue.firstIndex(of: "<").map { String(contactValue[contactValue.index(after: $0)...].prefix { $0 != ">" }) } ?? contactValue
        dialog = (Self.header("Call-ID", in: head) ?? "", Self.header("From", in: head) ?? "", to, contact, peer)
        let sdp = "v=0\r\no=phone 1 1 IN IP4 127.0.0.1\r\ns=-\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\n"
            + "m=audio \(rtpPort) RTP/AVP 0 101\r\na=rtpmap:0 PCMU/8000\r\na=rtpmap:101 telephone-event/8000\r\na=ptime:20\r\na=sendrecv\r\n"
        respond(to: invite, peer: peer, to: to, extra: "Contact: <\(uri)>\r\nContent-Type: application/sdp\r\n", body: sdp)
        startMedia(sendingTo: remotePort)
    }

    private func respond(to request: String, peer: sockaddr_in, to: String? = nil, extra: String = "", body: String = "") {
        let (head, _) = Self.split(request)
        let vias = head.split(separator: "\r\n").filter { $0.lowercased().hasPrefix("via:") || $0.lowercased().hasPrefix("v:") }
        let response = "SIP/2.0 200 OK\r\n" + vias.map { $0 + "\r\n" }.joined()
            + "From: \(Self.header("From", in: head) ?? "")\r\nTo: \(to ?? Self.header("To", in: head) ?? "")\r\n"
            + "Call-ID: \(Self.header("Call-ID", in: head) ?? "")\r\nCSeq: \(Self.header("CSeq", in: head) ?? "")\r\n"
            + extra + "Content-Length: \(body.utf8.count)\r\n\r\n" + body
        send(response, to: peer)
    }

    private func startMedia(sendingTo remotePort: Int) {
        stopMedia()
        let description = """
            audiotestsrc name=phone-mouth is-live=true samplesperbuffer=160 wave=ticks freq=1500 tick-interval=500000000 \
            sine-periods-per-tick=135 volume=0.5 ! audio/x-raw,rate=8000,channels=1 ! mulawenc ! rtppcmupay pt=0 \
            ! udpsink host=127.0.0.1 port=\(remotePort) sync=false async=false
            udpsrc port=\(rtpPort) address=127.0.0.1 reuse=false caps="application/x-rtp,media=audio,clock-rate=8000,encoding-name=PCMU,payload=0" \
            ! rtpjitterbuffer latency=20 ! rtppcmudepay ! mulawdec ! audioconvert ! audio/x-raw,format=S16LE \
            ! identity name=phone-ear ! fakesink sync=false async=false
            """
        var error: UnsafeMutablePointer<GError>?
        guard let parsed = gst_parse_launch(description, &error), error == nil else {
            if error != nil { g_error_free(error) }
            return
        }
        let pipeline = Pipeline(retaining: parsed)
        mouth = pipeline.element(named: "phone-mouth")?.staticPad("src").map { AudioOnsetProbe(pad: $0, timing: .capture) }
        ear = pipeline.element(named: "phone-ear")?.staticPad("src").map { AudioOnsetProbe(pad: $0, timing: .arrival) }
        _ = pipeline.setState(GST_STATE_PLAYING)
        media = pipeline
    }

    private func stopMedia() {
        if let media { _ = media.setState(GST_STATE_NULL) }
        media = nil
    }

    private func send(_ text: String, to peer: sockaddr_in) {
        var peer = peer
        let bytes = Array(text.utf8)
        _ = withUnsafePointer(to: &peer) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { sendto(fd, bytes, bytes.count, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
    }

    private static func split(_ message: String) -> (head: String, body: String) {
        guard let range = message.range(of: "\r\n\r\n") else { return (message, "") }
        return (String(message[..<range.lowerBound]), String(message[range.upperBound...]))
    }

    /// A header's value by its name or compact form (case-insensitive).
    private static func header(_ name: String, in head: String) -> String? {
        let compact = ["from": "f", "to": "t", "call-id": "i", "contact": "m", "via": "v"][name.lowercased()]
        for line in head.split(separator: "\r\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let key = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
            if key == name.lowercased() || key == compact { return line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces) }
        }
        return nil
    }

    private static func address(_ port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return address
    }
}
