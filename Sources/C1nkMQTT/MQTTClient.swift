import C1nkGLibBase
import CMosquitto
import Glibc

/// One connection to an MQTT broker through libmosquitto, on the main
/// context and never blocking it: the broker's name is looked up off the
/// main context (`HostLookup`) and libmosquitto is handed an address, the
/// socket is watched (`FileDescriptorWatch`) and read and written as it is
/// ready, a timer of the injected clock keeps the session alive, and a
/// lost or refused connection (or a name that does not resolve) is tried
/// again with backoff (`MQTTBackoff`). libmosquitto's callbacks and pointers stay in this file.
/// Main context only.
public final class MQTTClient {
    public enum Status: Equatable, Sendable {
        /// The broker accepted the session; subscriptions are renewed.
        case connected
        /// The broker could not be reached, or refused the login; the next try is in `retryIn` seconds.
        case connectFailed(reason: String, retryIn: Double)
        /// An open session was lost; the next try is in `retryIn` seconds.
        case disconnected(reason: String, retryIn: Double)
    }

    public var onStatus: ((Status) -> Void)?
    /// Every message that arrives on a subscribed topic, retained or not.
    public var onMessage: ((MQTTMessage) -> Void)?
    public private(set) var isConnected = false

    private let settings: MQTTSettings
    private let clock: any TimerClock
    private var handle: OpaquePointer?
    private var reference: Unmanaged<Reference>?
    private var readWatch: FileDescriptorWatch?
    private var writeWatch: FileDescriptorWatch?
    private var keepAliveTimer: (any ScheduledTimer)?
    private var retryTimer: (any ScheduledTimer)?
    private var backoff: MQTTBackoff
    private var subscriptions: [String] = []
    private var socketOpen = false
    private var stopped = false
    private var lookup: HostLookup?
    /// The last lookup's addresses not tried yet; each is tried in turn before the backoff.
    private var addresses: [String] = []

    private static let libraryReady: Bool = { mosquitto_lib_init() == MOSQ_ERR_SUCCESS.rawValue }()

    public init(settings: MQTTSettings, clock: any TimerClock = GLibClock.shared) throws {
        self.settings = settings
        self.clock = clock
        self.backoff = MQTTBackoff(initial: settings.initialBackoff, maximum: settings.maximumBackoff)
        guard Self.libraryReady, let handle = mosquitto_new(settings.clientId, true, nil) else {
            throw MQTTError("cannot start the MQTT client (libmosquitto: \(String(cString: strerror(errno)))); check that libmosquitto1 is installed")
        }
        self.handle = handle
        let reference = Unmanaged.passRetained(Reference(self))
        self.reference = reference
        mosquitto_user_data_set(handle, reference.toOpaque())
        _ = mosquitto_int_option(handle, MOSQ_OPT_PROTOCOL_VERSION, Int32(MQTT_PROTOCOL_V311))
        if let user = settings.user {
            try check(mosquitto_username_pw_set(handle, user, settings.password), "set the MQTT login")
        }
        if let will = settings.will {
            try check(will.payload.withUnsafeBytes {
                mosquitto_will_set(handle, will.topic, Int32($0.count), $0.baseAddress, 1, will.retain)
            }, "set the MQTT last will")
        }
        if settings.tls {
            let capath: String? = settings.trustCA == nil ? "/etc/ssl/certs" : nil
            try check(mosquitto_tls_set(handle, settings.trustCA, capath, nil, nil, nil),
                      "use the CA file \(settings.trustCA ?? "/etc/ssl/certs"); check that it is a readable PEM file")
            // libmosquitto is given the address; the certificate must still be the name's.
            if !Self.isAddress(settings.host) {
                try check(c1nk_mosquitto_tls_check_name(handle, settings.host), "check the broker's certificate against \(settings.host)")
            }
        }
        mosquitto_connect_callback_set(handle) { _, data, rc in
            Reference.client(data)?.connectAnswered(rc)
        }
        mosquitto_message_callback_set(handle) { _, data, message in
            guard let client = Reference.client(data), let message = message?.pointee else { return }
            let length = Int(message.payloadlen)
            // Over the limit: only its length goes on, its bytes are never copied.
            guard length <= client.settings.largestPayload else {
                client.onMessage?(MQTTMessage(topic: String(cString: message.topic), payload: [], retain: message.retain,
                                              uncopiedLength: length))
                return
            }
            let bytes = length > 0 && message.payload != nil ? Array(UnsafeRawBufferPointer(start: message.payload, count: length)) : []
            client.onMessage?(MQTTMessage(topic: String(cString: message.topic), payload: bytes, retain: message.retain))
        }
    }

    /// Subscribes now if connected, and again on every reconnect.
    public func subscribe(_ topic: String) {
        subscriptions.append(topic)
        if isConnected, let handle { _ = mosquitto_subscribe(handle, nil, topic, 1); flush() }
    }

    /// Queues `message` (QoS 1) and writes what the socket takes now; dropped while not connected.
    @discardableResult
    public func publish(_ message: MQTTMessage) -> Bool {
        guard isConnected, let handle else { return false }
        let rc = message.payload.withUnsafeBytes {
            mosquitto_publish(handle, nil, message.topic, Int32($0.count), $0.baseAddress, 1, message.retain)
        }
        flush()
        return rc == MOSQ_ERR_SUCCESS.rawValue
    }

    /// Starts connecting; the outcome arrives as `onStatus`.
    public func start() {
        stopped = false
        attempt()
    }

    /// Disconnects cleanly (no last will) and stops reconnecting.
    public func stop() {
        stopped = true
        retryTimer = nil
        lookup = nil
        addresses = []
        if let handle, socketOpen {
            _ = mosquitto_disconnect(handle)
            _ = mosquitto_loop_write(handle, 1)
        }
        closeSocket()
    }

    deinit {
        stop()
        if let handle { mosquitto_destroy(handle) }
        reference?.release()
    }

    // MARK: The connection

    private func attempt() {
        guard !stopped, handle != nil else { return }
        retryTimer = nil
        if addresses.isEmpty { resolve() } else { connect(to: addresses.removeFirst()) }
    }

    /// Looks the broker's name up again (an address may have changed since), off the main context.
    private func resolve() {
        let host = settings.host
        lookup = HostLookup(host) { [weak self] result in
            guard let self, !self.stopped else { return }
            self.lookup = nil
            switch result {
            case .success(let found):
                Log.mqtt.debug("\(host) is \(found.joined(separator: ", "))")
                self.addresses = found
                self.attempt()
            case .failure(let error):
                self.failed("cannot resolve \(host) (\(error.message)); check the name in --mqtt, or give the broker's address", connected: false)
            }
        }
    }

    /// The TCP connect to an address does not block (libmosquitto's lookup of a literal is no query).
    private func connect(to address: String) {
        guard let handle else { return }
        if socketOpen { closeSocket() }
        let rc = mosquitto_connect_async(handle, address, Int32(settings.port), Int32(settings.keepAlive))
        Log.mqtt.debug("connecting to \(settings.host) at \(address):\(settings.port)")
        guard rc == MOSQ_ERR_SUCCESS.rawValue else {
            failed(Self.describe(rc), connected: false)
            return
        }
        socketOpen = true
        let fd = mosquitto_socket(handle)
        readWatch = FileDescriptorWatch(fd: fd, .readable) { [weak self] condition in
            guard let self, let handle = self.handle else { return false }
            let pending = Self.socketError(fd)
            // Everything that is there (a TLS record may hold several packets the socket no longer shows; a CONNACK before a close).
            let rc = mosquitto_loop_read(handle, 64)
            guard self.socketOpen else { return false }
            if rc != MOSQ_ERR_SUCCESS.rawValue { self.lost(rc); return false }
            // Closed, or refused (a TLS handshake under way does not notice): the watch would fire on and on.
            if !condition.isDisjoint(with: [.hangUp, .error]) {
                if let pending { errno = pending; self.lost(MOSQ_ERR_ERRNO.rawValue); return false }
                guard self.isConnected else {
                    self.failed("the connection closed before the broker answered; check the port in --mqtt and that the broker listens there",
                                connected: false)
                    return false
                }
                self.lost(MOSQ_ERR_CONN_LOST.rawValue)
                return false
            }
            self.flush()
            return true
        }
        // Often enough that a ping goes out before the broker's 1.5 × keep-alive runs out.
        keepAliveTimer = clock.schedule(after: max(1, Double(settings.keepAlive) / 4), repeats: true) { [weak self] in
            guard let self, let handle = self.handle else { return }
            let rc = mosquitto_loop_misc(handle)
            // No answer to a ping: libmosquitto closed the socket itself.
            if rc != MOSQ_ERR_SUCCESS.rawValue || mosquitto_socket(handle) < 0 { self.lost(MOSQ_ERR_KEEPALIVE.rawValue); return }
            self.flush()
        }
        flush()
    }

    /// Writes what is queued; when the socket is full, waits for it to be writable.
    private func flush() {
        guard let handle, socketOpen, mosquitto_want_write(handle) else { return }
        let rc = mosquitto_loop_write(handle, 1)
        if rc != MOSQ_ERR_SUCCESS.rawValue { lost(rc); return }
        guard mosquitto_want_write(handle), writeWatch?.isActive != true else { return }
        writeWatch = FileDescriptorWatch(fd: mosquitto_socket(handle), .writable) { [weak self] _ in
            guard let self, let handle = self.handle, self.socketOpen else { return false }
            let rc = mosquitto_loop_write(handle, 1)
            if rc != MOSQ_ERR_SUCCESS.rawValue { self.lost(rc); return false }
            return mosquitto_want_write(handle)
        }
    }

    private func connectAnswered(_ rc: Int32) {
        guard rc == 0 else {
            let reason = String(cString: mosquitto_connack_string(rc))
            failed("the broker refused the connection: \(reason); check --mqtt-user and --mqtt-password-file", connected: false)
            return
        }
        Log.mqtt.info("connected to \(settings.host):\(settings.port) as \(settings.clientId)")
        isConnected = true
        addresses = []
        backoff.reset()
        for topic in subscriptions { _ = mosquitto_subscribe(handle, nil, topic, 1) }
        onStatus?(.connected)
        flush()
    }

    private func lost(_ rc: Int32) {
        guard socketOpen else { return }
        failed(Self.describe(rc), connected: isConnected)
    }

    private func failed(_ reason: String, connected: Bool) {
        closeSocket()
        guard !stopped else { return }
        if !connected, !addresses.isEmpty {
            // The name has another address: that one at once, the backoff once all have failed.
            Log.mqtt.debug("\(settings.host):\(settings.port): \(reason); trying its next address")
            MainContext.post { [weak self] in self?.attempt() }
            return
        }
        addresses = []
        let delay = backoff.next()
        Log.mqtt.debug("\(settings.host):\(settings.port): \(reason); next try in \(delay) s")
        retryTimer = clock.schedule(after: delay) { [weak self] in self?.attempt() }
        onStatus?(connected ? .disconnected(reason: reason, retryIn: delay) : .connectFailed(reason: reason, retryIn: delay))
    }

    private func closeSocket() {
        readWatch = nil
        writeWatch = nil
        keepAliveTimer = nil
        isConnected = false
        if socketOpen, let handle { _ = mosquitto_disconnect(handle) }
        socketOpen = false
    }

    private func check(_ rc: Int32, _ what: String) throws {
        guard rc == MOSQ_ERR_SUCCESS.rawValue else { throw MQTTError("cannot \(what) (\(Self.describe(rc)))") }
    }

    /// What libmosquitto's callbacks carry back to the client, weakly.
    private final class Reference {
        weak var client: MQTTClient?
        init(_ client: MQTTClient) { self.client = client }
        static func client(_ data: UnsafeMutableRawPointer?) -> MQTTClient? {
            data.map { Unmanaged<Reference>.fromOpaque($0).takeUnretainedValue().client } ?? nil
        }
    }
}
