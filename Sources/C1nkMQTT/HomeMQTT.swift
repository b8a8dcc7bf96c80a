import C1nkCall
import C1nkGLibBase
import C1nkHome
import FoundationEssentials

/// The answerer on MQTT: an `MQTTClient` driven by a `HomeLink`. Give it
/// every `CallEvent` (`send`), and a `command` closure that hands a word to
/// the answerer and returns its refusal. Publications are dropped while the
/// broker is away; the states are published again on reconnect. Accept
/// and open need the open code (`HomeCodeGate`); without one they are refused.
/// Main context only.
public final class HomeMQTT {
    public private(set) var link: HomeLink
    public let client: MQTTClient
    /// Runs a command word on the answerer; returns why it was refused, or nil.
    public var command: ((String) -> String?)?
    /// The connection's ups and downs, for the status line and the events log.
    public var onStatus: ((MQTTClient.Status) -> Void)?
    /// Whether the broker keeps the last visitor's picture (`--mqtt-retain-snapshot`): off, so
    /// that a visitor's face does not stay on the broker for whoever subscribes later.
    public let retainSnapshot: Bool

    public init(settings: MQTTSettings, discovery: HomeAssistantDiscovery, openCode: HomeOpenCode? = nil,
                retainSnapshot: Bool = false, clock: any TimerClock = GLibClock.shared) throws {
        link = HomeLink(discovery: discovery, openCode: openCode)
        self.retainSnapshot = retainSnapshot
        var settings = settings
        // Commands are a word or a short JSON object: larger payloads are not even copied.
        settings.largestPayload = HomeCommand.maximumBytes
        let will = link.will
        settings.will = MQTTMessage(topic: will.topic, text: will.payload, retain: will.retain)
        client = try MQTTClient(settings: settings, clock: clock)
        client.subscribe(link.topics.command)
        client.subscribe(HomeTopics.homeAssistantStatus)
        client.onStatus = { [weak self] status in
            guard let self else { return }
            if status == .connected { self.publish(self.link.connected()) }
            self.onStatus?(status)
        }
        client.onMessage = { [weak self] message in self?.received(message) }
    }

    public func start() { client.start() }
    /// Says `offline` (a clean disconnect sends no last will), then disconnects.
    public func stop() {
        publish([link.will])
        client.stop()
    }

    /// One of the answerer's events.
    public func send(_ event: CallEvent) {
        publish(link.handle(event))
        if case let .snapshot(_, path) = event { publishSnapshot(path) }
    }

    /// The `image` entity's picture: the JPEG's bytes; retained only with
    /// `retainSnapshot` (Home Assistant then shows it after its own restart too).
    private func publishSnapshot(_ path: String) {
        guard let data = readFile(atPath: path, limit: Self.largestSnapshot + 1) else {
            Log.mqtt.warning("cannot read the snapshot \(path) to publish it")
            return
        }
        // A JPEG of the door's camera is tens of kilobytes; more is not a snapshot of ours.
        guard data.count <= Self.largestSnapshot else {
            Log.mqtt.warning("the snapshot \(path) is over \(Self.largestSnapshot / 1_000_000) MB: not published")
            return
        }
        client.publish(MQTTMessage(topic: link.topics.snapshot, payload: data, retain: retainSnapshot))
    }

    static let largestSnapshot = 8_000_000

    private func received(_ message: MQTTMessage) {
        let incoming = message.uncopiedLength.map { link.oversized(topic: message.topic, length: $0, retained: message.retain) }
            ?? link.message(topic: message.topic, payload: message.payload, retained: message.retain)
        switch incoming {
        case .ignore:
            if message.retain, message.topic == link.topics.command {
                Log.mqtt.info("ignored a retained command on \(message.topic): only live commands are obeyed")
            }
        case .publish(let publications): publish(publications)
        case .refused(let publication):
            Log.mqtt.info("refused a command on \(message.topic): \(publication.payload)")
            publish([publication])
        case let .wrongCode(publication, count):
            // Someone who can publish on the command topic is trying codes.
            Log.mqtt.warning("a wrong open code on \(message.topic) (\(count) of \(HomeCodeGate.allowedWrongCodes) in this ring)")
            publish([publication])
        case .command(let command):
            if let refusal = self.command?(command.rawValue) {
                Log.mqtt.debug("\(command.rawValue) refused: \(refusal)")
                publish([link.refusal(refusal, command: command)])
            } else {
                publish(link.obeyed(command))
            }
        }
    }

    private func publish(_ publications: [HomePublication]) {
        for p in publications { client.publish(MQTTMessage(topic: p.topic, text: p.payload, retain: p.retain)) }
    }
}
