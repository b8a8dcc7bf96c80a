import C1nkCall
import C1nkGLibBase
import C1nkHome
import Foundation

/// The answerer on MQTT: an `MQTTClient` driven by a `HomeLink`. Give it
/// every `CallEvent` (`send`), and a `command` closure that hands a word to
/// the answerer and returns its refusal. Publications are dropped while the
/// broker is away; the states are published again on reconnect.
/// Main context only.
public final class HomeMQTT {
    public private(set) var link: HomeLink
    public let client: MQTTClient
    /// Runs a command word on the answerer; returns why it was refused, or nil.
    public var command: ((String) -> String?)?
    /// The connection's ups and downs, for the status line and the events log.
    public var onStatus: ((MQTTClient.Status) -> Void)?

    public init(settings: MQTTSettings, discovery: HomeAssistantDiscovery, clock: any TimerClock = GLibClock.shared) throws {
        link = HomeLink(discovery: discovery)
        var settings = settings
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

    /// The `image` entity's picture: the JPEG's bytes, retained, so Home
    /// Assistant shows the last visitor after its own restart too.
    private func publishSnapshot(_ path: String) {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            Log.mqtt.warning("cannot read the snapshot \(path) to publish it")
            return
        }
        defer { try? handle.close() }
        // A JPEG of the door's camera is tens of kilobytes; more is not a snapshot of ours.
        guard let data = try? handle.read(upToCount: Self.largestSnapshot + 1), data.count <= Self.largestSnapshot else {
            Log.mqtt.warning("the snapshot \(path) is over \(Self.largestSnapshot / 1_000_000) MB: not published")
            return
        }
        client.publish(MQTTMessage(topic: link.topics.snapshot, payload: Array(data), retain: true))
    }

    static let largestSnapshot = 8_000_000

    private func received(_ message: MQTTMessage) {
        switch link.message(topic: message.topic, payload: message.payload, retained: message.retain) {
        case .ignore:
            if message.retain, message.topic == link.topics.command {
                Log.mqtt.info("ignored a retained command on \(message.topic): only live commands are obeyed")
            }
        case .publish(let publications): publish(publications)
        case .refused(let publication):
            Log.mqtt.debug("refused a command on \(message.topic): \(publication.payload)")
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
