import C1nkCall
import C1nkGLib
import FoundationEssentials
import Glibc

/// Writes one JSON object per line, `{"event": …, "callId": …, "t": <unix ms>, …}`,
/// for scripts and tests (`--events PATH|-`), in the one encoding of
/// `CallEvent+JSON.swift`. Each line is written whole and at once, so a
/// reader tailing the file never sees half an event.
public final class EventLog {
    private let fd: Int32
    private let ownsDescriptor: Bool
    /// The latest events written, in order (for the demo summary and tests):
    /// at most `memoryLimit`, so that a process answering for months does not grow.
    public private(set) var written: [[String: Any]] = []
    /// The same events, typed.
    public private(set) var events: [TimedCallEvent] = []
    public static let memoryLimit = 1000
    /// Called with each event and its JSON object as it is written (the
    /// command's status lines, the control socket).
    public var onEvent: ((_ event: CallEvent, _ object: [String: Any]) -> Void)?
    private var observers: [(_ name: String, _ fields: [String: Any]) -> Void] = []

    /// Also calls `observer` with each event (the wall display, the ring history).
    public func addObserver(_ observer: @escaping (_ name: String, _ fields: [String: Any]) -> Void) {
        observers.append(observer)
    }

    /// Opens `path` for appending; "-" is standard output.
    public init(path: String) throws {
        if path == "-" {
            fd = 1
            ownsDescriptor = false
        } else {
            fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
            guard fd >= 0 else {
                throw EventLogError(message: "cannot open the events file \(path): \(String(cString: strerror(errno)))")
            }
            ownsDescriptor = true
        }
    }

    /// Keeps events in memory only.
    public init() {
        fd = -1
        ownsDescriptor = false
    }

    public func emit(_ event: CallEvent) {
        let t = MainContext.unixMilliseconds()
        let object = event.jsonObject(t: t)
        written.append(object)
        events.append(TimedCallEvent(event: event, t: t))
        if written.count > 2 * Self.memoryLimit {
            written.removeFirst(written.count - Self.memoryLimit)
            events.removeFirst(events.count - Self.memoryLimit)
        }
        onEvent?(event, object)
        for observer in observers { observer(event.name, object) }
        // A number JSON cannot carry (NaN) keeps the event in memory only, as it always has.
        guard fd >= 0, var data = event.jsonLine(t: t) else { return }
        data.append(UInt8(ascii: "\n"))
        data.withUnsafeBytes { _ = write(fd, $0.baseAddress, $0.count) }
    }

    deinit { if ownsDescriptor { close(fd) } }
}

public struct EventLogError: Error, CustomStringConvertible {
    public let message: String
    public var description: String { message }
}
