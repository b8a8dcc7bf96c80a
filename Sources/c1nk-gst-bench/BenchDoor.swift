import C1nkDoor
import C1nkGLib
import C1nkLocal
import C1nkMedia
import C1nkProbes

/// The door of a benchmarked call: the simulated door (its uplink in a relay
/// of its own), or headless Chromium, whose uplink is the server's relay.
final class BenchDoor {
    let simulated: SimulatedDoor?
    let browserDoor: BrowserDoor?
    private let relay: MediaRelay?
    /// The door encoder's target as it moved: (monotonic seconds, kbit/s).
    private var targets: [(time: Double, kbps: Int)] = []
    /// What the simulated door's camera stamped in this call (its session is gone once the call ends).
    private(set) var stamped: StampedFrames?

    init(browser: Bool, server: SignalServer, media: DoorMediaSession.Options) throws {
        if browser {
            let relay = MediaRelay()
            if media.network.uplinkKbps > 0 {
                relay.uplink = UplinkBottleneck(kbps: media.network.uplinkKbps, queueMilliseconds: media.network.uplinkQueueMilliseconds)
            }
            server.relay = relay
            var options = BrowserDoor.Options(serverURL: server.url)
            options.codec = media.codec.rawValue
            options.width = media.width
            options.height = media.height
            browserDoor = BrowserDoor(options)
            self.relay = relay
            simulated = nil
        } else {
            var options = SimulatedDoor.Options(serverURL: server.url)
            options.media = media
            let door = try SimulatedDoor(options)
            door.start()
            simulated = door
            browserDoor = nil
            relay = nil
        }
    }

    /// The simulated door once connected; the browser is started by `ring`.
    var isReady: Bool { simulated?.isReady ?? true }

    /// The simulated door rings; the browser starts, and rings once it is connected.
    func ring() throws {
        if let simulated { simulated.ring() } else { try browserDoor?.start() }
    }

    /// Called while the call runs: keeps the simulated door's targets (its
    /// session is gone once the call ends).
    func sample() {
        if let rates = simulated?.encoderRates, !rates.isEmpty { targets = rates }
        if let frames = simulated?.stampedFrames { stamped = frames }
    }

    /// Frames the browser's encoder skipped since its first one was sent.
    var framesSkippedByEncoder: Int? { browserDoor?.stats.last?.skipped }

    var uplink: UplinkBottleneck? { relay?.uplink ?? simulated?.uplink }

    func stop() {
        simulated?.stop()
        browserDoor?.stop()
        relay?.stop()
    }

    /// The encoder's target once a second from `start` (monotonic seconds).
    func encoderKbpsEachSecond(from start: Double?) -> [Int]? {
        if let browserDoor {
            return browserDoor.stats.filter { $0.time >= (start ?? 0) }.compactMap { $0.targetBitrate.map { Int($0 / 1000) } }
        }
        guard let start, !targets.isEmpty else { return nil }
        let end = targets.last!.time
        return stride(from: start, through: max(start, end), by: 1).map { second in
            (targets.last { $0.time <= second } ?? targets[0]).kbps
        }
    }

    /// The browser's bandwidth estimate once a second from `start`.
    func estimateKbpsEachSecond(from start: Double?) -> [Int]? {
        browserDoor?.stats.filter { $0.time >= (start ?? 0) }.compactMap { $0.availableOutgoingBitrate.map { Int($0 / 1000) } }
    }
}
