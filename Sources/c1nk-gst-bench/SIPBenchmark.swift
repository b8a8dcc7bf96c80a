import C1nkCall
import C1nkDoor
import C1nkGLib
import C1nkLocal
import C1nkProbes
import C1nkSIP
import Foundation
import Glibc

/// `--sip`: the SIP bridge, call by call. `c1nk-gst-answer --sip-ring` with
/// the simulated door and `BenchPhone` (in this process, on the door's
/// clock): the answerer's `ringing` event → its INVITE at the phone; the
/// door's 1000 Hz ticks (`door-mouth`) → the phone's ear, and the phone's
/// 1500 Hz bursts → the door's `heard-level` (the wall's own microphone is
/// silent); `#` sent as SIP INFO → the door told to open; the answerer's
/// CPU while the call is bridged.
struct SIPFigures: Codable, PrettyJSON {
    var calls: Int
    /// The answerer's `ringing` event → the INVITE at the phone (unix ms, one machine).
    var ringToInviteMs: LatencyStats
    /// The door's ring sent → the INVITE at the phone (through the local server).
    var doorRingToInviteMs: LatencyStats
    var doorToPhoneMs: LatencyStats
    var phoneToDoorMs: LatencyStats
    var doorTicks: Int
    var phoneBursts: Int
    /// `#` (SIP INFO) sent by the phone → `open-door` at the door (through the local server).
    var keyToOpenMs: LatencyStats
    /// The answerer's CPU (% of one core) while a call is bridged, and the same call answered at the wall instead.
    var bridgedCPUPercent: Double
    var unbridgedCPUPercent: Double
    var ringGoalMs = 50.0
    var talkGoalMs = 150.0
    var keyGoalMs = 200.0

    var table: String {
        func row(_ stats: LatencyStats) -> String { "p50 \(Int(stats.p50.rounded())) ms, p95 \(Int(stats.p95.rounded())) ms, max \(Int(stats.max.rounded())) ms" }
        return """
            The SIP bridge (\(calls) calls, a phone on loopback UDP answering at once with PCMU, a 20 ms jitter buffer)
            ring → INVITE on the wire: \(row(ringToInviteMs)) (goal ≤ \(Int(ringGoalMs)) ms); from the door's ring: \(row(doorRingToInviteMs))
            mouth-to-ear, door → phone: \(row(doorToPhoneMs)) (\(doorToPhoneMs.count) of \(doorTicks) ticks heard; goal ≤ \(Int(talkGoalMs)) ms)
            mouth-to-ear, phone → door: \(row(phoneToDoorMs)) (\(phoneToDoorMs.count) of \(phoneBursts) bursts heard; goal ≤ \(Int(talkGoalMs)) ms)
            # → open-door at the door: \(row(keyToOpenMs)) (goal ≤ \(Int(keyGoalMs)) ms)
            the answerer's CPU while bridged: \(String(format: "%.1f", bridgedCPUPercent)) % of one core; the same call answered at the wall: \(String(format: "%.1f", unbridgedCPUPercent)) %
            """
    }
}

struct SIPBenchmark {
    let options: BenchOptions

    func run(progress: (String) -> Void) throws -> SIPFigures {
        let directory = NSTemporaryDirectory() + "c1nk-sip-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let server = try SignalServer()
        var doorOptions = SimulatedDoor.Options(serverURL: server.url)
        doorOptions.media.ice = .loopback
        doorOptions.media.audioSource = AudioBenchmark.doorMouth
        let door = try SimulatedDoor(doorOptions)
        var openedAt: [Double] = []
        door.onEvent = { if $0 == .doorOpened { openedAt.append(MainContext.monotonicSeconds()) } }
        door.start()
        defer { door.stop(); server.stop() }
        let phone = try BenchPhone()
        guard let sipPort = RTPPortPair.find(on: "127.0.0.1") else { throw BenchError("no free loopback UDP port for SIP") }
        let eventsPath = directory + "/events.jsonl"
        let common = ["--server", server.url, "--stun", "none", "--ice-local-ip", "127.0.0.1", "--ringtone", "none",
                      "--sink", "fakesink", "--screens", "off", "--audio-sink", "fakesink", "--audio-source", "audiotestsrc is-live=true wave=silence",
                      "--events", eventsPath, "--device-id-file", directory + "/device-id"]
        let answerer = try AnswererProcess.spawn(common + ["--sip-ring", phone.uri, "--sip-address", "127.0.0.1", "--sip-port", String(sipPort)])
        defer { if answerer.isRunning { answerer.terminate(); answerer.waitUntilExit() } }
        guard MainContext.run(timeout: 15, until: { door.isReady && server.connectedAppIds.count == 1 }) else {
            throw BenchError("the answerer did not connect")
        }
        let monitor = ProcessMonitor(pid: answerer.processIdentifier)
        var ringToInvite: [Double] = [], doorRingToInvite: [Double] = [], keyToOpen: [Double] = []
        var doorToPhone: [Double] = [], phoneToDoor: [Double] = [], cpu: [Double] = []
        var doorTicks = 0, phoneBursts = 0
        let calls = max(3, options.repeats)
        for call in 1...calls {
            progress("SIP: call \(call) of \(calls)…")
            let invitesBefore = phone.invites.count
            let ringingBefore = Self.ringings(eventsPath).count
            let ringAt = MainContext.monotonicSeconds()
            door.ring()
            guard MainContext.run(timeout: 10, until: { phone.invites.count > invitesBefore }) else { throw BenchError("no INVITE at the phone") }
            let invite = phone.invites[invitesBefore]
            doorRingToInvite.append((invite.monotonic - ringAt) * 1000)
            guard MainContext.run(timeout: 5, until: { Self.ringings(eventsPath).count > ringingBefore }) else {
                throw BenchError("no ringing event")
            }
            let ringing = Self.ringings(eventsPath)[ringingBefore]
            ringToInvite.append(Double(invite.unix - ringing.t))
            guard MainContext.run(timeout: 10, until: { door.acceptedAt != nil && door.acceptedAt! >= ringAt }) else {
                throw BenchError("the phone's answer did not accept the call")
            }
            // Past the start of the talk path (the mixer's first buffers, the jitter buffers filling).
            MainContext.spin(1.5)
            guard let doorMouth = door.onsetProbe(at: "door-mouth"), let doorEar = door.onsetProbe(at: "heard-level"),
                  let phoneMouth = phone.mouth, let phoneEar = phone.ear else { throw BenchError("an onset probe is missing") }
            let start = UInt64(MainContext.monotonicSeconds() * 1e9)
            let cpuFrom = MainContext.monotonicSeconds()
            MainContext.spin(options.duration)
            // The last half second's onsets may not have reached the other side yet.
            let end = UInt64((MainContext.monotonicSeconds() - 0.5) * 1e9)
            cpu.append(monitor.cpuPercent(since: cpuFrom))
            let ticks = doorMouth.onsets.filter { $0 >= start && $0 <= end }
            let bursts = phoneMouth.onsets.filter { $0 >= start && $0 <= end }
            doorToPhone += AudioOnsetProbe.delays(mouth: ticks, ear: phoneEar.onsets)
            phoneToDoor += AudioOnsetProbe.delays(mouth: bursts, ear: doorEar.onsets)
            progress("  onsets: the door's \(ticks.count) ticks, \(phoneEar.onsets.filter { $0 >= start }.count) at the phone's ear; "
                     + "the phone's \(bursts.count) bursts, \(doorEar.onsets.filter { $0 >= start }.count) at the door's")
            doorTicks += ticks.count
            phoneBursts += bursts.count
            let openedBefore = openedAt.count
            let pressedAt = MainContext.monotonicSeconds()
            phone.press("#")
            guard MainContext.run(timeout: 5, until: { openedAt.count > openedBefore }) else { throw BenchError("# did not open the door") }
            keyToOpen.append((openedAt[openedBefore] - pressedAt) * 1000)
            let byesBefore = phone.byes
            door.hangup()
            guard MainContext.run(timeout: 10, until: { phone.byes > byesBefore }) else { throw BenchError("no BYE at the phone") }
            MainContext.spin(1)
        }
        monitor.stop()
        answerer.terminate()
        answerer.waitUntilExit()
        let unbridged = try unbridgedCPU(common: common, server: server, door: door, calls: calls, progress: progress)
        return SIPFigures(calls: calls, ringToInviteMs: LatencyStats(ringToInvite), doorRingToInviteMs: LatencyStats(doorRingToInvite),
                          doorToPhoneMs: LatencyStats(doorToPhone), phoneToDoorMs: LatencyStats(phoneToDoor),
                          doorTicks: doorTicks, phoneBursts: phoneBursts, keyToOpenMs: LatencyStats(keyToOpen),
                          bridgedCPUPercent: cpu.isEmpty ? 0 : cpu.reduce(0, +) / Double(cpu.count), unbridgedCPUPercent: unbridged)
    }

    /// The same calls accepted by the answerer itself (`--answer auto`), no phone: the CPU to compare.
    private func unbridgedCPU(common: [String], server: SignalServer, door: SimulatedDoor, calls: Int,
                              progress: (String) -> Void) throws -> Double {
        let answerer = try AnswererProcess.spawn(common + ["--answer", "auto"])
        defer { if answerer.isRunning { answerer.terminate(); answerer.waitUntilExit() } }
        guard MainContext.run(timeout: 15, until: { server.connectedAppIds.count == 1 }) else { throw BenchError("the answerer did not connect") }
        let monitor = ProcessMonitor(pid: answerer.processIdentifier)
        defer { monitor.stop() }
        var cpu: [Double] = []
        for call in 1...calls {
            progress("SIP: the same call without the bridge \(call) of \(calls)…")
            let ringAt = MainContext.monotonicSeconds()
            door.ring()
            guard MainContext.run(timeout: 10, until: { door.acceptedAt != nil && door.acceptedAt! >= ringAt }) else { throw BenchError("no accept") }
            MainContext.spin(1.5)
            let from = MainContext.monotonicSeconds()
            MainContext.spin(options.duration)
            cpu.append(monitor.cpuPercent(since: from))
            door.hangup()
            MainContext.spin(1)
        }
        return cpu.reduce(0, +) / Double(cpu.count)
    }

    private static func ringings(_ path: String) -> [TimedCallEvent] {
        TimedCallEvent.read((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").filter { $0.event.kind == .ringing }
    }
}
