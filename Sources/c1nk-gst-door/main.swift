import C1nkCommandLine
import C1nkDoor
import C1nkGLib
import C1nkMedia
import Glibc

let usage = """
Usage: c1nk-gst-door --server URL [OPTIONS]

A simulated door panel: a test-pattern camera with the door's name on it and
a tone as the visitor's voice, speaking the local server's door protocol.
Rings a running c1nk-gst-answer from another terminal.

  --server URL          the local C1nk server (ws://127.0.0.1:8765/ws)
  --ring                ring once when connected, then exit when the call ends
  --name NAME           the door's name (default "Hlavný vchod")
  --codec vp8|h264|vp9  video codec (default vp8)
  --audio-codec opus|pcmu|pcma  voice codec offered (default opus, with in-band FEC and DTX)
  --resolution WxH      camera size (default 640x480)
  --hangup-after S      the visitor leaves S seconds after the resident accepts
  --pre-encoded         encode a few seconds of the camera once at start and replay them in a
                        loop (fresh RTP timestamps; a keyframe request jumps to the clip's next
                        keyframe): a door that costs almost no CPU, for load tests. No time
                        stamps in the frames and no --adapt
  --stun URL|none       STUN server (default none: the simulated door lives on this host)
  --ice-local-ip ADDR   gather ICE candidates on this address (default 127.0.0.1)
  --help                show this help

A bad network between this door and the answerer (applied to what the door
sends, inside its own pipeline; netem is not needed). The door answers NACK
with RTX and PLI with a keyframe, as real doors do; retransmissions are never
lost:
  --loss PCT            lose PCT % of video packets on their first send
  --loss-burst N        ... in bursts of N packets on average (Gilbert-Elliott;
                        default 1: each packet on its own)
  --jitter MS           delay each packet by a random 0..MS ms
  --reorder PCT         hold PCT % of packets back 10-30 ms so later ones overtake
  --bandwidth KBPS      cap the sending rate; the encoder aims under it
  --outage-at S         S seconds after the first packet, send nothing ...
  --outage-for MS       ... for MS milliseconds
  --uplink-kbps N       a home router's uplink after the door: everything it sends leaves at
                        N kbit/s through a drop-tail queue (the door then adapts, below)
  --uplink-queue-ms M   ... that holds M ms of sending (default 200)
  --adapt               offer transport-wide congestion control and follow the answerer's
                        feedback with the encoder's rate, as a browser does (on with
                        --uplink-kbps; --no-adapt turns it off)
  --fec                 offer RED/ULPFEC besides NACK/RTX
  --seed N              seed of the loss pattern (default 1)
"""

var server: String?
var ringOnce = false
var hangupAfter: Double?
var media = DoorMediaSession.Options()
media.ice.stunServers = []
var localAddresses: [String] = []
var adapt: Bool?
do {
    var reader = ArgumentReader(Array(CommandLine.arguments.dropFirst()))
    while let option = try reader.nextOption() {
        switch option {
        case "--help", "-h":
            print(usage)
            exit(0)
        case "--server":
            server = try reader.value(for: option)
            try validateServerURL(server!)
        case "--ring": ringOnce = true
        case "--name": media.doorName = try reader.value(for: option)
        case "--codec":
            media.codec = DoorMediaSession.VideoCodec(rawValue: try reader.choice(for: option, ["vp8", "h264", "vp9"]))!
        case "--audio-codec":
            media.audioCodec = DoorMediaSession.AudioCodec(rawValue: try reader.choice(for: option, ["opus", "pcmu", "pcma"]))!
        case "--resolution":
            let text = try reader.value(for: option)
            let parts = text.split(separator: "x").compactMap { Int($0) }
            guard parts.count == 2, parts.allSatisfy({ $0 >= 16 && $0 <= 4096 }) else {
                throw ArgumentReader.UsageError("--resolution takes WIDTHxHEIGHT such as 1280x720, not '\(text)'")
            }
            media.width = parts[0]
            media.height = parts[1]
        case "--hangup-after": hangupAfter = try reader.number(for: option)
        case "--pre-encoded": media.preEncoded = true
        case "--stun":
            let url = try reader.value(for: option)
            media.ice.stunServers = url == "none" ? [] : [url]
        case "--ice-local-ip": localAddresses.append(try reader.value(for: option))
        case "--loss": media.network.lossPercent = try reader.number(for: option, maximum: 100)
        case "--loss-burst": media.network.burstLength = try reader.number(for: option, minimum: 1)
        case "--jitter": media.network.jitterMilliseconds = try reader.integer(for: option)
        case "--reorder": media.network.reorderPercent = try reader.number(for: option, maximum: 100)
        case "--bandwidth": media.network.bandwidthKbps = try reader.integer(for: option)
        case "--outage-at": media.network.outageAt = try reader.number(for: option)
        case "--outage-for": media.network.outageMilliseconds = try reader.integer(for: option)
        case "--uplink-kbps": media.network.uplinkKbps = try reader.integer(for: option)
        case "--uplink-queue-ms": media.network.uplinkQueueMilliseconds = try reader.integer(for: option)
        case "--adapt": adapt = true
        case "--no-adapt": adapt = false
        case "--fec": media.fec = true
        case "--seed": media.network.seed = UInt64(try reader.integer(for: option))
        default: throw ArgumentReader.UsageError("unknown option \(option)")
        }
    }
    guard server != nil else { throw ArgumentReader.UsageError("--server URL is required") }
    do { try media.network.validate() } catch { throw ArgumentReader.UsageError("\(error)") }
    if media.network.outageAt != nil && media.network.outageMilliseconds <= 0 {
        throw ArgumentReader.UsageError("--outage-at needs --outage-for MS (how long nothing is sent)")
    }
} catch {
    writeToStandardError("c1nk-gst-door: \(error)\nRun c1nk-gst-door --help to see the options.\n")
    exit(2)
}
media.adaptsToFeedback = adapt ?? (media.network.uplinkKbps > 0)
media.ice.localAddresses = localAddresses.isEmpty ? ["127.0.0.1"] : localAddresses

GStreamer.initialize()
var options = SimulatedDoor.Options(serverURL: server!)
options.media = media
let door: SimulatedDoor
do { door = try SimulatedDoor(options) } catch {
    writeToStandardError("c1nk-gst-door: \(error)\n")
    exit(1)
}
var done = false
var failed = false
var hangupTimer: GLibTimer?
door.onEvent = { event in
    print("c1nk-gst-door: \(event)")
    switch event {
    case .ready:
        if ringOnce { door.ring() }
    case .accepted:
        if let hangupAfter { hangupTimer = GLibTimer(after: hangupAfter) { door.hangup() } }
    case .callEnded:
        if ringOnce { done = true }
    case .disconnected:
        done = true
        failed = true
    case .error(let text):
        writeToStandardError("c1nk-gst-door: \(text)\n")
        if !door.isReady { done = true; failed = true }
    default:
        break
    }
}
door.start()
let watches = [UnixSignalWatch(signal: SIGINT) { door.hangup(); done = true },
               UnixSignalWatch(signal: SIGTERM) { door.hangup(); done = true }]
MainContext.run(poll: nil) { done }
MainContext.spin(0.2)
door.stop()
withExtendedLifetime(watches) {}
exit(failed ? 1 : 0)
