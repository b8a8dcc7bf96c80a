import C1nkGLib
import FoundationEssentials
import Glibc
import Synchronization

/// A phone on a network of its own: a network namespace joined to this
/// host's by a veth pair (or, for jitter, by `JitterTunnel`'s relay), with
/// the `PhoneLink`'s impairments applied by nftables and `tc tbf` on the
/// kernel's path. A browser started with `commandPrefix` lives in it and
/// reaches the answerer at `hostAddress`; the answerer sees it at
/// `phoneAddress`. Needs root; `unavailableReason` says why not.
///
/// Test and benchmark fixture: it runs `ip`, `nft` and `tc` synchronously.
public final class PhoneNetwork {
    public let name: String
    public let hostAddress: String
    public let phoneAddress: String
    public let link: PhoneLink
    private let hostInterface: String
    private let phoneInterface: String
    private var tunnel: JitterTunnel?
    private var removed = false
    private static let made = Atomic<Int>(0)

    /// Why a phone network cannot be made here, or nil when it can.
    public static var unavailableReason: String? {
        if geteuid() != 0 { return "a phone's network namespace needs root" }
        for tool in ["ip", "nft", "tc"] where executable(tool) == nil {
            return "\(tool) is not installed (apt-get install iproute2 nftables)"
        }
        if !FileManager.default.fileExists(atPath: "/dev/net/tun") { return "/dev/net/tun is missing (the jitter relay needs TUN)" }
        return nil
    }

    public init(_ link: PhoneLink = .clean) throws {
        if let reason = Self.unavailableReason { throw DevToolsError(reason) }
        Self.removeAbandoned()
        let pid = Int(getpid())
        let serial = Self.made.add(1, ordering: .relaxed).oldValue % 10
        name = "c1nk-phone-\(pid)-\(serial)"
        // A /30 of 10.100.0.0–10.199.255.255 from the process and serial.
        let slot = (pid * 10 + serial) % 6400
        let prefix = "10.\(100 + slot / 64).\((slot % 64) * 4)"
        hostAddress = prefix + ".1"
        phoneAddress = prefix + ".2"
        hostInterface = "c1p\(pid % 1_000_000)\(serial)h"
        phoneInterface = "c1p\(pid % 1_000_000)\(serial)p"
        self.link = link
        do {
            try Self.run("ip", "netns", "add", name)
            try inPhone("ip", "link", "set", "lo", "up")
            if link.needsRelay {
                tunnel = try JitterTunnel(hostInterface: hostInterface, phoneInterface: phoneInterface,
                                          delayMs: link.jitterMs, spreadMs: link.jitterSpreadMs)
                try Self.run("ip", "link", "set", phoneInterface, "netns", name)
                try Self.run("ip", "addr", "add", hostAddress, "peer", phoneAddress, "dev", hostInterface)
                try inPhone("ip", "addr", "add", phoneAddress, "peer", hostAddress, "dev", phoneInterface)
            } else {
                try Self.run("ip", "link", "add", hostInterface, "type", "veth", "peer", "name", phoneInterface)
                try Self.run("ip", "link", "set", phoneInterface, "netns", name)
                try Self.run("ip", "addr", "add", hostAddress + "/30", "dev", hostInterface)
                try inPhone("ip", "addr", "add", phoneAddress + "/30", "dev", phoneInterface)
            }
            try Self.run("ip", "link", "set", hostInterface, "up")
            try inPhone("ip", "link", "set", phoneInterface, "up")
            try applyRules()
            if link.capKbps > 0 {
                // A queue of ~100 ms at the cap, as a Wi-Fi hop buffers.
                for (namespace, interface) in [(nil, hostInterface), (name, phoneInterface)] {
                    try Self.run(namespace: namespace, "tc", "qdisc", "add", "dev", interface, "root", "tbf", "rate", "\(link.capKbps)kbit",
                                 "burst", "\(max(link.capKbps * 4, 16_000) / 8)", "latency", "100ms")
                }
            }
        } catch {
            remove()
            throw error
        }
    }

    deinit { remove() }

    /// Prepended to a command to run it inside the phone's namespace.
    public var commandPrefix: [String] { [Self.executable("ip") ?? "ip", "netns", "exec", name] }

    /// Drops every packet on the phone's link, both ways (a Wi-Fi
    /// drop-out), until `endDropOut`.
    public func startDropOut() throws { try inPhone("nft", "add", "rule", "inet", "c1nk_phone", "outage", "drop") }
    public func endDropOut() throws { try inPhone("nft", "flush", "chain", "inet", "c1nk_phone", "outage") }

    /// Packets counted by the loss rules so far (each way), from nftables' counters.
    public var droppedPackets: Int {
        guard let text = try? Self.output(namespace: name, "nft", "list", "table", "inet", "c1nk_phone") else { return 0 }
        return text.split(separator: "\n").filter { $0.contains("drop") }.reduce(0) { total, line in
            let words = line.split(separator: " ")
            guard let index = words.firstIndex(of: "packets"), index + 1 < words.count, let count = Int(words[index + 1]) else { return total }
            return total + count
        }
    }

    /// Removes the namespace (its end of the pair goes with it) and stops the relay.
    public func remove() {
        guard !removed else { return }
        removed = true
        tunnel?.stop()
        tunnel = nil
        try? Self.run("ip", "link", "del", hostInterface)
        try? Self.run("ip", "netns", "del", name)
    }

    /// The loss rules and an empty `outage` chain that a drop-out fills; loopback
    /// inside the namespace (the browser's DevTools) is never touched.
    private func applyRules() throws {
        var script = "table inet c1nk_phone {\n chain outage {\n }\n"
        for (chain, hook, interface) in [("in", "input", "iifname"), ("out", "output", "oifname")] {
            script += " chain \(chain) {\n  type filter hook \(hook) priority 0; policy accept;\n  \(interface) \"lo\" accept\n  jump outage\n"
            for match in link.lossMatches { script += "  \(match) counter drop\n" }
            script += " }\n"
        }
        script += "}\n"
        let file = temporaryFolder() + "\(name).nft"
        try script.write(toFile: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: file) }
        try inPhone("nft", "-f", file)
    }

    private func inPhone(_ arguments: String...) throws { try Self.run(namespace: name, arguments) }

    /// Namespaces left by a process that is gone (a crashed test).
    private static func removeAbandoned() {
        guard let list = try? output(namespace: nil, "ip", "netns", "list") else { return }
        for line in list.split(separator: "\n") {
            let namespace = String(line.split(separator: " ").first ?? "")
            let parts = namespace.split(separator: "-")
            guard namespace.hasPrefix("c1nk-phone-"), parts.count == 4, let pid = Int32(parts[2]), pid != getpid(),
                  kill(pid, 0) != 0, errno == ESRCH else { continue }
            try? run("ip", "netns", "del", namespace)
        }
    }

    static func executable(_ tool: String) -> String? {
        ["/usr/sbin/", "/sbin/", "/usr/bin/", "/bin/"].map { $0 + tool }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    static func run(_ arguments: String...) throws { try run(namespace: nil, arguments) }
    static func run(namespace: String?, _ arguments: String...) throws { try run(namespace: namespace, arguments) }
    static func run(namespace: String?, _ arguments: [String]) throws { _ = try output(namespace: namespace, arguments) }
    static func output(namespace: String?, _ arguments: String...) throws -> String { try output(namespace: namespace, arguments) }

    static func output(namespace: String?, _ arguments: [String]) throws -> String {
        let command = (namespace.map { ["ip", "netns", "exec", $0] } ?? []) + arguments
        guard let tool = executable(command[0]) else { throw DevToolsError("\(command[0]) is not installed") }
        let process = try ChildProcess(tool, Array(command.dropFirst()), input: .null, output: .pipe, error: .pipe)
        let text = process.outputPipe.map { readToEnd($0) } ?? []
        let problem = process.errorPipe.map { readToEnd($0) } ?? []
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw DevToolsError("\(command.joined(separator: " ")) failed: \(String(decoding: problem, as: UTF8.self).trimmingWhitespaceAndNewlines())")
        }
        return String(decoding: text, as: UTF8.self)
    }
}
