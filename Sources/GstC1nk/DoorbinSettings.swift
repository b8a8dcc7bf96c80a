import C1nkAnswerer
import CGStreamer
import CGstC1nk
import Glibc

/// The properties of a `c1nkdoorbin`, read and checked at the change to
/// READY. A bad value fails the change with a message naming the property.
struct DoorbinSettings {
    var server: String
    var deviceIdFile: String?
    var trustedCAFile: String?
    var answerMode: Answerer.AnswerMode
    var answerDelay: Double
    var latencyMilliseconds: UInt
    var repairWindowMilliseconds: UInt
    /// nil: the library's default STUN servers; empty: none.
    var stunServers: [String]?
    var turnServer: String?
    var localAddress: String?

    struct Problem: Error, CustomStringConvertible {
        let description: String
        init(_ property: String, _ text: String) { description = "c1nkdoorbin: property '\(property)' \(text)" }
    }

    init(reading element: UnsafeMutableRawPointer) throws {
        func string(_ name: String) -> String? {
            guard let value = c1nk_object_get_string(element, name) else { return nil }
            defer { g_free(value) }
            let text = String(cString: value)
            return text.isEmpty ? nil : text
        }
        guard let server = string("server") else {
            throw Problem("server", "is not set: give the signaling server, e.g. server=ws://127.0.0.1:8765/ws")
        }
        guard (server.hasPrefix("ws://") || server.hasPrefix("wss://")), server.count > 6 else {
            throw Problem("server", "takes a ws:// or wss:// URL, not '\(server)'")
        }
        self.server = server
        deviceIdFile = string("device-id-file")
        trustedCAFile = string("trust-ca")
        if let file = trustedCAFile, access(file, R_OK) != 0 {
            throw Problem("trust-ca", "names a file that cannot be read: \(file)")
        }
        let answer = string("answer") ?? "manual"
        guard let mode = Answerer.AnswerMode(rawValue: answer) else {
            throw Problem("answer", "takes auto or manual, not '\(answer)'")
        }
        answerMode = mode
        answerDelay = c1nk_plugin_object_get_double(element, "answer-delay")
        let latency = Int(c1nk_object_get_int(element, "latency"))
        guard (0...10_000).contains(latency) else {
            throw Problem("latency", "takes milliseconds from 0 to 10000, not \(latency)")
        }
        latencyMilliseconds = UInt(latency)
        let repairWindow = Int(c1nk_object_get_int(element, "repair-window"))
        guard (0...10_000).contains(repairWindow) else {
            throw Problem("repair-window", "takes milliseconds from 0 to 10000, not \(repairWindow)")
        }
        repairWindowMilliseconds = UInt(repairWindow)
        if let stun = string("stun-server") {
            guard stun == "none" || stun.hasPrefix("stun:") else {
                throw Problem("stun-server", "takes stun:host:port or none, not '\(stun)'")
            }
            stunServers = stun == "none" ? [] : [stun]
        }
        turnServer = string("turn-server")
        if let turn = turnServer, !(turn.hasPrefix("turn:") || turn.hasPrefix("turns:")) {
            throw Problem("turn-server", "takes turn://user:password@host:port, not '\(turn)'")
        }
        localAddress = string("ice-local-ip")
        if let address = localAddress, !Self.isIPAddress(address) {
            throw Problem("ice-local-ip", "takes an IP address such as 127.0.0.1, not '\(address)'")
        }
    }

    static func isIPAddress(_ text: String) -> Bool {
        var storage = in6_addr()
        return inet_pton(AF_INET, text, &storage) == 1 || inet_pton(AF_INET6, text, &storage) == 1
    }
}
