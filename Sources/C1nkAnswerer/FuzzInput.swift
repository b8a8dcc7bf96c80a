import C1nkGLib
import C1nkCall
import C1nkMedia
import C1nkPipeline
import C1nkProtocol
import FoundationEssentials

/// One untrusted input through every path that reads what the network
/// sends: the wire codec of all four message kinds, the door's SDP offer
/// up to what `AnswerSession` computes from it before building a pipeline,
/// and a callId through to file names and a pipeline's text (`paths`).
/// The libFuzzer target (`scripts/fuzz`) calls it with each generated input;
/// unit tests call it with every crash the fuzzer ever found.
///
/// It must never trap: bad input is an error value, never a crash.
public enum FuzzInput {
    public static func run(_ bytes: UnsafeRawBufferPointer) {
        let text = String(decoding: bytes, as: UTF8.self)
        run(text)
    }

    public static func run(_ text: String) {
        _ = WireCodec.decode(ClientMessage.self, from: text).map { WireCodec.encode($0) }
        _ = WireCodec.decode(DoorMessage.self, from: text).map { WireCodec.encode($0) }
        _ = WireCodec.decode(ServerToDoorMessage.self, from: text).map { WireCodec.encode($0) }
        switch WireCodec.decode(ServerMessage.self, from: text) {
        case .success(let message):
            _ = WireCodec.encode(message)
            callMachine(message)
            if let callId = message.callId { paths(callId: callId) }
            if case let .offer(_, sdp) = message { offer(sdp) }
        case .failure(let error):
            _ = error.description
        }
        // The text as an offer itself, so the fuzzer reaches the SDP parser directly,
        // and as an id, so it reaches the file names directly.
        offer(text)
        paths(callId: text)
    }

    /// What `AnswerSession.init` derives from an offer before it builds anything.
    static func offer(_ sdp: String) {
        guard let summary = try? OfferSummary(sdp: sdp) else { return }
        var values: [String: String] = [:]
        values["video-depay"] = summary.videoDepayloader
        values["video-decoder"] = summary.videoDecoder
        values["audio-depay"] = summary.audioDepayloader
        values["audio-encoder"] = summary.audioSendChain().map { "\($0.encoder) ! capsfilter caps=\"\($0.caps)\"" }
        for index in 0..<UInt32(min(summary.lines.count + 1, 64)) { _ = summary.mid(forLine: index) }
        _ = summary.hasVideo
        _ = summary.audioLineIndex
        // Filling and parsing the description is a pure function of these
        // few values, which take few distinct forms; it was two thirds of the
        // time per input. Each distinct set is parsed once.
        let key = ["video-depay", "video-decoder", "audio-depay", "audio-encoder"].map { values[$0] ?? "-" }.joined(separator: "\u{0}")
        guard parsedDescriptions.insert(key) else { return }
        let description = MediaConfiguration.fill(
            "identity name=video-in ! {video-depay} ! {video-decoder} ! identity name=video-out ! fakesink\n"
                + "identity name=audio-in ! {audio-depay} ! fakesink\naudiotestsrc ! {audio-encoder} ! identity name=audio-out",
            values)
        _ = PipelineGraph(lines: description.components(separatedBy: "\n"))
    }

    /// The value sets `offer` has already filled and parsed (bounded).
    private static let parsedDescriptions = SeenKeys(limit: 4096)

    final class SeenKeys: @unchecked Sendable {
        private let lock = ThreadLock()
        private var keys: Set<String> = []
        private let limit: Int

        init(limit: Int) { self.limit = limit }

        /// True the first time `key` is seen (again after the set fills up and is cleared).
        func insert(_ key: String) -> Bool {
            lock.withLock {
                if keys.count >= limit { keys.removeAll(keepingCapacity: true) }
                return keys.insert(key).inserted
            }
        }
    }

    /// A decoded server message as an event of a call in progress.
    static func callMachine(_ message: ServerMessage) {
        var machine = CallMachine()
        let callId: String
        switch message {
        case let .incoming(id, _), let .joinOk(id), let .offer(id, _), let .ice(id, _), let .callEnd(id, _),
             let .doorOpenOk(id):
            callId = id
        case .error(_, let id):
            callId = id ?? "call"
        case .welcome, .helloOk, .tokenOk, .pong:
            return
        }
        _ = machine.handle(.incoming(callId: callId, doorName: "fuzz"))
        switch message {
        case let .offer(id, sdp): _ = machine.handle(.offer(callId: id, sdp: sdp))
        case let .ice(id, candidate): _ = machine.handle(.remoteCandidate(callId: id, candidate: candidate))
        case let .callEnd(id, reason): _ = machine.handle(.callEnd(callId: id, reason: reason))
        case let .doorOpenOk(id): _ = machine.handle(.doorOpenOk(callId: id))
        case let .joinOk(id): _ = machine.handle(.joinOk(callId: id))
        case let .error(text, id): _ = machine.handle(.serverError(callId: id, message: text))
        case let .incoming(id, name): _ = machine.handle(.incoming(callId: id, doorName: name))
        case .welcome, .helloOk, .tokenOk, .pong: break
        }
        _ = machine.handle(.shutdown)
    }
}
