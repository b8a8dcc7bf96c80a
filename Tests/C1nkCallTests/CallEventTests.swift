import XCTest
@testable import C1nkCall
import C1nkProtocol

/// The events' wire format is a contract (docs/events.md): every case is
/// pinned here, byte for byte, and read back.
final class CallEventTests: XCTestCase {
    private static let t: Int64 = 1_764_000_000_123

    /// One sample of every event, with the line the events log writes for it.
    private static let samples: [(CallEvent, String)] = [
        (.connected(server: "wss://c1nk.example/ws"),
         #"{"event":"connected","server":"wss://c1nk.example/ws","t":1764000000123}"#),
        (.registered(deviceId: "dev-1"), #"{"deviceId":"dev-1","event":"registered","t":1764000000123}"#),
        (.disconnected(reason: "server closed"), #"{"event":"disconnected","reason":"server closed","t":1764000000123}"#),
        (.connectFailed(reason: "refused", retryIn: 0.5),
         #"{"event":"connect-failed","reason":"refused","retryIn":0.5,"t":1764000000123}"#),
        (.ringing(callId: "c1", doorName: "Hlavný vchod"),
         #"{"callId":"c1","doorName":"Hlavný vchod","event":"ringing","t":1764000000123}"#),
        (.missed(callId: "c2", doorName: "Dvor", reason: "busy"),
         #"{"callId":"c2","doorName":"Dvor","event":"missed","reason":"busy","t":1764000000123}"#),
        (.accepted(callId: "c1"), #"{"callId":"c1","event":"accepted","t":1764000000123}"#),
        (.mediaConnected(callId: "c1"), #"{"callId":"c1","event":"media-connected","t":1764000000123}"#),
        (.mediaConnected(callId: "c1", sinceRingMs: 412),
         #"{"callId":"c1","event":"media-connected","sinceRingMs":412,"t":1764000000123}"#),
        (.firstFrame(callId: "c1", sinceRingMs: 480),
         #"{"callId":"c1","event":"first-frame","sinceRingMs":480,"t":1764000000123}"#),
        (.videoStalled(callId: "c1"), #"{"callId":"c1","event":"video-stalled","t":1764000000123}"#),
        (.videoResumed(callId: "c1", stalledMs: 2250),
         #"{"callId":"c1","event":"video-resumed","stalledMs":2250,"t":1764000000123}"#),
        (.doorOpened(callId: "c1"), #"{"callId":"c1","event":"door-opened","t":1764000000123}"#),
        (.doorOpenFailed(callId: "c1", reason: .notConnected),
         #"{"callId":"c1","event":"door-open-failed","reason":"not-connected","t":1764000000123}"#),
        (.doorOpenFailed(callId: "c1", reason: .noReply),
         #"{"callId":"c1","event":"door-open-failed","reason":"no-reply","t":1764000000123}"#),
        (.ended(callId: "c1", reason: .hangup, doorName: "Hlavný vchod", frames: 250),
         #"{"callId":"c1","doorName":"Hlavný vchod","event":"ended","frames":250,"reason":"hangup","t":1764000000123}"#),
        (.ended(callId: "c3", reason: .answeredElsewhere, doorName: "Dvor", serverReason: "answered-elsewhere"),
         #"{"callId":"c3","doorName":"Dvor","event":"ended","reason":"answered-elsewhere","serverReason":"answered-elsewhere","t":1764000000123}"#),
        (.recording(callId: "c1", path: "/var/lib/c1nk/2026-12-01 c1.mkv"),
         #"{"callId":"c1","event":"recording","path":"/var/lib/c1nk/2026-12-01 c1.mkv","t":1764000000123}"#),
        (.recorded(callId: "c1", path: "/r/c1.mkv"), #"{"callId":"c1","event":"recorded","path":"/r/c1.mkv","t":1764000000123}"#),
        (.snapshot(callId: "c1", path: "/r/c1.jpg"), #"{"callId":"c1","event":"snapshot","path":"/r/c1.jpg","t":1764000000123}"#),
        (.decoder(callId: "c1", element: "v4l2h264dec", hardware: true),
         #"{"callId":"c1","element":"v4l2h264dec","event":"decoder","hardware":true,"t":1764000000123}"#),
        (.decoder(callId: "c1", element: "avdec_h264", hardware: false, failed: "v4l2h264dec", reason: "decoding error"),
         #"{"callId":"c1","element":"avdec_h264","event":"decoder","failed":"v4l2h264dec","hardware":false,"reason":"decoding error","t":1764000000123}"#),
        (.recorded(callId: "c1", path: "/r/c1.mkv", error: "disk full"),
         #"{"callId":"c1","error":"disk full","event":"recorded","path":"/r/c1.mkv","t":1764000000123}"#),
        (.levels(callId: "c1", door: -23.4, resident: -100, muted: false),
         #"{"callId":"c1","door":-23.4,"event":"levels","muted":false,"resident":-100,"t":1764000000123}"#),
        (.measurements(callId: "c1", figures: ["decodeMs": .object(["count": .int(3), "p50": .double(1.25)]),
                                               "framesIntact": .int(90), "setupMs": .object(["offer": .double(12.5)])]),
         #"{"callId":"c1","decodeMs":{"count":3,"p50":1.25},"event":"measurements","framesIntact":90,"setupMs":{"offer":12.5},"t":1764000000123}"#),
        (.mainLoop(callId: "c1", lateMs: ["count": .int(900), "p50": .double(0.12), "p99": .double(1.5), "max": .double(4.25)]),
         #"{"callId":"c1","event":"main-loop","lateMs":{"count":900,"max":4.25,"p50":0.12,"p99":1.5},"t":1764000000123}"#),
        (.missed(callId: "x\\x22", doorName: "Vchod", reason: "invalid-call-id"),
         #"{"callId":"x\\x22","doorName":"Vchod","event":"missed","reason":"invalid-call-id","t":1764000000123}"#),
        (.error(message: "the speaker: no such device"),
         #"{"event":"error","message":"the speaker: no such device","t":1764000000123}"#),
        (.error(callId: "c1", message: "server: unknown call c1"),
         #"{"callId":"c1","event":"error","message":"server: unknown call c1","t":1764000000123}"#),
        (.deleted(path: "/r/old.mkv", reason: "age"), #"{"event":"deleted","path":"/r/old.mkv","reason":"age","t":1764000000123}"#),
        (.reloaded(applied: ["answer", "speaker-volume"], needsRestart: []),
         #"{"applied":["answer","speaker-volume"],"event":"reloaded","needsRestart":[],"t":1764000000123}"#),
        (.sipRegistered(registrar: "sip:192.168.178.1"), #"{"event":"sip-registered","registrar":"sip:192.168.178.1","t":1764000000123}"#),
        (.sipRinging(callId: "c1", phones: ["sip:**9@192.168.178.1", "sip:hall@10.0.0.5"]),
         #"{"callId":"c1","event":"sip-ringing","phones":["sip:**9@192.168.178.1","sip:hall@10.0.0.5"],"t":1764000000123}"#),
        (.sipAnswered(callId: "c1", phone: "sip:**9@192.168.178.1"),
         #"{"callId":"c1","event":"sip-answered","phone":"sip:**9@192.168.178.1","t":1764000000123}"#),
    ]

    func testEveryEventHasItsLinePinned() throws {
        for (event, line) in Self.samples {
            let written = try XCTUnwrap(event.jsonLine(t: Self.t), "\(event)")
            XCTAssertEqual(String(decoding: written, as: UTF8.self), line, "\(event)")
        }
    }

    func testEveryKindIsSampled() {
        XCTAssertEqual(Set(Self.samples.map(\.0.kind)), Set(CallEvent.Kind.allCases))
        for kind in CallEvent.Kind.allCases {
            XCTAssertTrue(Self.samples.contains { $0.0.kind == kind && $0.1.contains(#""event":"\#(kind.rawValue)""#) }, "\(kind)")
        }
    }

    func testEveryLineReadsBackAsItsEvent() throws {
        for (event, line) in Self.samples {
            XCTAssertEqual(try TimedCallEvent(line: Data(line.utf8)), TimedCallEvent(event: event, t: Self.t), line)
        }
    }

    func testALineThatIsNotAnEventSaysWhy() {
        XCTAssertThrowsError(try TimedCallEvent(line: Data(#"{"event":"teleported","t":1}"#.utf8))) { error in
            XCTAssertEqual("\(error)", #"not a c1nk-gst event: field "event" is missing or not understood in ["event", "t"]"#)
        }
        XCTAssertThrowsError(try TimedCallEvent(line: Data(#"{"event":"ended","callId":"c1","t":1}"#.utf8))) { error in
            XCTAssertEqual("\(error)", #"not a c1nk-gst event: field "reason" is missing or not understood in ["callId", "event", "t"]"#)
        }
    }

    /// The call machine's events are the same values the log writes.
    func testTheMachineEmitsTypedEvents() {
        var machine = CallMachine()
        let actions = machine.handle(.incoming(callId: "c1", doorName: "Hlavný vchod"))
        XCTAssertEqual(actions.first, .emit(.ringing(callId: "c1", doorName: "Hlavný vchod")))
    }
}
