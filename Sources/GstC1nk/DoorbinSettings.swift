import C1nkAnswerer
import C1nkMedia
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

    init(reading element: PluginElement) throws {
        func string(_ name: String) -> String? { element.string(name) }
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
        answerDelay = element.double("answer-delay")
        let latency = element.int("latency")
        guard (0...10_000).contains(latency) else {
            throw Problem("latency", "takes milliseconds from 0 to 10000, not \(latency)")
        }
        latencyMilliseconds = UInt(latency)
        let repairWindow = element.int("repair-window")
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
        if let address = localAddress, !IceConfiguration.isIPAddress(address) {
            throw Problem("ice-local-ip", "takes an IP address such as 127.0.0.1, not '\(address)'")
        }
    }
}
