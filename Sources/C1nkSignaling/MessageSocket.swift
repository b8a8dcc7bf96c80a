import C1nkGLibBase
import C1nkProtocol

/// A WebSocket that speaks one dialect: typed messages out, typed messages or
/// typed protocol errors in. Shared by the app client, the server and the door.
public final class MessageSocket<Incoming: WireMessage> {
    public let connection: WebSocketConnection
    private let log: Log

    public var onMessage: ((Incoming) -> Void)?
    public var onProtocolError: ((ProtocolError) -> Void)?
    public var onClosed: ((String) -> Void)?

    public init(_ connection: WebSocketConnection, log: Log) {
        self.connection = connection
        self.log = log
        connection.onText = { [weak self] text in self?.received(text) }
        connection.onBinary = { [weak self] size in self?.refused(.binaryFrame(bytes: size)) }
        connection.onClosed = { [weak self] reason in self?.onClosed?(reason) }
    }

    public var isOpen: Bool { connection.isOpen }

    public func send<Outgoing: WireMessage>(_ message: Outgoing) {
        let text = WireCodec.encode(message)
        log.debug("→ \(text.prefix(300))")
        connection.send(text)
    }

    private func received(_ text: String) {
        switch WireCodec.decode(Incoming.self, from: text) {
        case .success(let message):
            log.debug("← \(text.prefix(300))")
            onMessage?(message)
        case .failure(let error):
            refused(error, sample: text)
        }
    }

    private func refused(_ error: ProtocolError, sample: String = "") {
        let excerpt = sample.isEmpty ? "" : ": \(sample.prefix(80).debugDescription)"
        log.warning("ignored a frame: \(error)\(excerpt)")
        onProtocolError?(error)
    }
}
