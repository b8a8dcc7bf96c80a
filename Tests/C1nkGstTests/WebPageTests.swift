import Foundation
import Glibc
import XCTest
@testable import C1nkDoor
@testable import C1nkGLib
@testable import C1nkLocal
@testable import C1nkProbes

/// The real page in headless Chromium against `c1nk-gst-answer --web-port`
/// and the simulated door: two phones log in, see the ring, press accept at
/// once (one call, the other told "prijaté inde"), open the door, hang up.
final class WebPageTests: XCTestCase {
    /// Records the page's Web Notifications (the browser shows none headless).
    static let notificationSpy = """
        window.__notifications = [];
        (() => { const Real = window.Notification; if (!Real) return;
          class Spy extends Real { constructor(title, options) { super(title, options); window.__notifications.push(title); } }
          Object.defineProperty(Spy, "permission", { get: () => Real.permission });
          Spy.requestPermission = (...a) => Real.requestPermission(...a);
          window.Notification = Spy; })();
        """

    /// Reads the door's stamp (FrameStamp: the capture time and the frame's
    /// sequence number, as rows of blocks) from the frame the page shows, through a canvas.
    static let readStamp = """
        (() => { const v = document.getElementById('video'); const w = v.videoWidth, h = v.videoHeight; if (!w) return '';
          const c = document.createElement('canvas'); c.width = w; c.height = h;
          const g = c.getContext('2d', { willReadFrequently: true }); g.drawImage(v, 0, 0, w, h);
          const blocks = 26, bw = Math.floor(w / (blocks + 2)), top = h - 32;
          function row(t) { const img = g.getImageData(0, t + 6, w, 4).data;
            const bit = (b) => { let s = 0; const x0 = b * bw + Math.floor(bw / 2) - 2;
              for (let y = 0; y < 4; y++) for (let x = x0; x < x0 + 4; x++) { const i = (y * w + x) * 4; s += (img[i] + img[i + 1] + img[i + 2]) / 3; }
              return s / 16 > 128; };
            if (!bit(0) || bit(1)) return -1; let n = 0; for (let b = 2; b < blocks; b++) n = n * 2 + (bit(b) ? 1 : 0); return n; }
          return row(top) + ' ' + row(top - 24); })()
        """

    /// The stamp of the frame on the page now: its age (ms, the clock every process here shares) and sequence number.
    static func stamp(_ page: DevToolsBrowser.Page) -> (age: Double, sequence: Int)? {
        let parts = page.string(readStamp).split(separator: " ").compactMap { Int($0) }
        guard parts.count == 2, parts[0] >= 0, parts[1] >= 0, let age = FrameStamp.age(of: parts[0]) else { return nil }
        return (age, parts[1])
    }

    /// Frames the page's video element has decoded so far.
    static func decodedFrames(_ phone: DevToolsBrowser.Page) -> Int {
        Int(phone.string("String(document.getElementById('video').getVideoPlaybackQuality().totalVideoFrames)")) ?? 0
    }

    func testTwoBrowsersLogInSeeTheRingOneAnswersOpensAndHangsUp() throws {
        Log.echoToStandardError = false
        defer { Log.echoToStandardError = true }
        var doorEvents: [SimulatedDoor.Event] = []
        let (server, door) = try AnswerCommandTests.serverAndDoor(configure: { $0.media.doorName = "Hlavný vchod"; $0.media.stampTime = true }) { doorEvents.append($0) }
        defer { door.stop(); server.stop() }
        // The local microphone is silent: what the door hears is the browser's.
        let answerer = try WebCommandTests.startAnswerer(server: server, audioSource: "audiotestsrc is-live=true wave=silence")
        defer { answerer.command.signal(SIGTERM); _ = answerer.command.wait() }
        let voice = answerer.directory + "/voice.wav"
        let maker = Process()
        maker.executableURL = URL(fileURLWithPath: "/usr/bin/gst-launch-1.0")
        maker.arguments = ["-q", "audiotestsrc", "freq=3000", "volume=0.5", "num-buffers=300", "!", "audio/x-raw,rate=48000,channels=1",
                           "!", "wavenc", "!", "filesink", "location=" + voice]
        try maker.run()
        maker.waitUntilExit()
        guard BrowserDoor.executable != nil else { throw XCTSkip("headless Chromium is not installed") }
        let browser = try DevToolsBrowser(extraFlags: ["--use-file-for-fake-audio-capture=" + voice])
        defer { browser.stop() }
        let url = "https://127.0.0.1:\(answerer.port)/"
        let phones = [try browser.open(url, beforeLoad: Self.notificationSpy), try browser.open(url, beforeLoad: Self.notificationSpy)]
        for phone in phones {
            waitUntil("the login form", timeout: 15) { phone.string("document.body.dataset.state") == "login" && phone.string("String(document.getElementById('login').hidden)") == "false" }
            try phone.evaluate("document.getElementById('password').value = 'wrong'; document.getElementById('login-form').requestSubmit()")
            waitUntil("a wrong password said") { phone.string("document.getElementById('login-error').textContent") == "Nesprávne heslo." }
            try phone.evaluate("document.getElementById('password').value = '\(WebCommandTests.password)'; document.getElementById('login-form').requestSubmit()")
            waitUntil("logged in, idle") { phone.string("document.body.dataset.state") == "idle" }
        }
        XCTAssertEqual(phones[0].string("String(document.cookie)"), "", "the session cookie is HttpOnly")
        waitUntil("online") { door.isReady && phones[0].string("String(document.getElementById('online').classList.contains('on'))") == "true" }

        door.ring()
        let rangAt = MainContext.monotonicSeconds()
        for phone in phones {
            waitUntil("ringing in the page") { phone.string("document.body.dataset.state") == "ringing" }
            XCTAssertEqual(phone.string("document.getElementById('door-name').textContent"), "Hlavný vchod")
            XCTAssertEqual(phone.string("document.getElementById('overline').textContent"), "ZVONÍ")
            waitUntil("a notification") { phone.string("JSON.stringify(window.__notifications)") == "[\"Zvoní: Hlavný vchod\"]" }
        }
        // The door's live video as the ring's preview, decoded in the page.
        let decodedFrames = Self.decodedFrames
        for phone in phones {
            waitUntil("the preview's frames decoded in the page", timeout: 15) { decodedFrames(phone) > 5 }
        }
        XCTAssertEqual(phones[0].string("String(document.getElementById('video').videoWidth)"), "640")
        if ProcessInfo.processInfo.environment["C1NK_UPDATE_SCREENS"] == "1" {
            let screens = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent("docs/screens/web-ringing.png")
            try phones[0].screenshot().write(to: screens)
        }
        let png = try phones[0].screenshot()
        XCTAssertEqual(Array(png.prefix(4)), [0x89, 0x50, 0x4E, 0x47], "a PNG of the page")

        // Ringing for seconds with both previews playing: the door heard nothing of the room.
        XCTAssertLessThan(door.loudestHeard(since: rangAt), -60, "nothing of the browsers before accept")
        // Both press accept in the same instant: one call.
        for phone in phones { phone.start("document.getElementById('accept').click()") }
        waitUntil("one in the call, the other told") {
            let shown = phones.map { $0.string("document.getElementById('overline').textContent") }
            return shown.sorted() == ["HOVOR", "PRIJATÉ INDE"]
        }
        let winner = phones.first { $0.string("document.getElementById('overline').textContent") == "HOVOR" }!
        let other = phones.first { $0 !== winner }!
        XCTAssertEqual(other.string("document.getElementById('notice').textContent"), "Prijaté inde")
        XCTAssertEqual(other.string("String(document.getElementById('call-actions').hidden)"), "true", "no controls for the other phone")
        XCTAssertEqual(winner.string("String(document.getElementById('call-actions').hidden)"), "false")
        XCTAssertEqual(winner.string("document.getElementById('open').textContent"), "OTVORIŤ DVERE")
        let acceptedAt = MainContext.monotonicSeconds()
        waitUntil("the winner talks") { winner.string("String(document.body.dataset.talking)") == "1" }
        waitUntil("the door hears the browser's microphone", timeout: 15) { door.loudestHeard(since: acceptedAt) > -40 }
        XCTAssertEqual(other.string("String(document.body.dataset.talking)"), "undefined", "one talker")
        let framesAtAccept = decodedFrames(winner)
        waitUntil("the call's video goes on in the page") { decodedFrames(winner) > framesAtAccept + 15 }
        // The door's own frames, read back from the page's pixels: fresh, and moving on.
        var first: (age: Double, sequence: Int)?
        waitUntil("a stamped frame read back from the page") { first = Self.stamp(winner); return first != nil }
        waitUntil("a later stamped frame") { (Self.stamp(winner)?.sequence ?? 0) > ((first?.sequence).map { $0 + 10 } ?? .max) }
        XCTAssertLessThan(try XCTUnwrap(first).age, 2000, "the frame on the page was captured moments ago")

        try winner.evaluate("document.getElementById('open').click()")
        waitUntil("the door opened") { doorEvents.contains(.doorOpened) }
        waitUntil("ODOMKNUTÉ once confirmed") { winner.string("document.getElementById('open').textContent") == "ODOMKNUTÉ" }
        try winner.evaluate("document.getElementById('mute').click()")
        waitUntil("muted") { winner.string("document.getElementById('mute').textContent") == "zapnúť" }

        // Both watch; the other phone's page disappears (its renderer crashes): its viewer ends, the call goes on.
        var state = WebClient(port: answerer.port)
        state.token = WebCommandTests.token
        waitUntil("two browsers watching") { state.request("GET", "/api/state").json["viewers"] as? Int == 2 }
        other.crash()
        waitUntil("the vanished page's viewer ended", timeout: 15) { state.request("GET", "/api/state").json["viewers"] as? Int == 1 }
        XCTAssertEqual(state.request("GET", "/api/state").json["state"] as? String, "call")
        let framesThen = decodedFrames(winner)
        waitUntil("the call's video goes on") { decodedFrames(winner) > framesThen + 10 }

        try winner.evaluate("document.getElementById('hangup').click()")
        for phone in [winner] {
            waitUntil("idle again") { phone.string("document.body.dataset.state") == "idle" }
            waitUntil("the ring listed") { phone.string("document.getElementById('rings').textContent").contains("Hlavný vchod") }
            XCTAssertTrue(phone.string("document.getElementById('rings').textContent").contains("prijaté"))
            waitUntil("the visitor's snapshot shown in the ring's row") {
                phone.string("String(document.querySelector('#rings img.visitor')?.naturalWidth)") == "640"
            }
        }
        // A ring answered elsewhere (a script, as the wall or the control socket would): both pages stop ringing.
        var script = WebClient(port: answerer.port)
        script.token = WebCommandTests.token
        door.ring()
        waitUntil("ringing again") { winner.string("document.body.dataset.state") == "ringing" }
        XCTAssertEqual(script.request("POST", "/api/command", json: ["command": "accept"]).status, 200)
        waitUntil("the page told it was answered elsewhere") {
            winner.string("document.getElementById('overline').textContent") == "PRIJATÉ INDE"
        }
        XCTAssertEqual(winner.string("String(document.getElementById('ringing-actions').hidden)"), "true", "no more accept")
        XCTAssertEqual(script.request("POST", "/api/command", json: ["command": "hangup"]).status, 200)
        waitUntil("idle") { winner.string("document.body.dataset.state") == "idle" }
    }

    /// An open-door lost on a bad network is reported in the page, never shown as opened.
    func testAnOpenDoorThatFailsIsReportedInThePage() throws {
        try withOnePhone(door: { $0.confirmsOpening = false }) { phone, door, _ in
            door.ring()
            waitUntil("ringing") { phone.string("document.body.dataset.state") == "ringing" }
            try phone.evaluate("document.getElementById('accept').click()")
            waitUntil("in the call") { phone.string("document.getElementById('overline').textContent") == "HOVOR" }
            try phone.evaluate("document.getElementById('open').click()")
            waitUntil("the failure said", timeout: 12) {
                phone.string("document.getElementById('notice').textContent").hasPrefix("Dvere sa neotvorili")
            }
            XCTAssertEqual(phone.string("document.getElementById('open').textContent"), "OTVORIŤ DVERE", "not shown as opened; press again to retry")
            XCTAssertFalse(door.doorOpened)
        }
    }

    /// One phone logged in to the real answerer and a door made by `door`; `body` is the test.
    private func withOnePhone(door configure: @escaping (inout SimulatedDoor.Options) -> Void,
                              _ body: (DevToolsBrowser.Page, SimulatedDoor, WebCommandTests.Answerer) throws -> Void) throws {
        Log.echoToStandardError = false
        defer { Log.echoToStandardError = true }
        guard BrowserDoor.executable != nil else { throw XCTSkip("headless Chromium is not installed") }
        let (server, door) = try AnswerCommandTests.serverAndDoor(configure: configure) { _ in }
        defer { door.stop(); server.stop() }
        let answerer = try WebCommandTests.startAnswerer(server: server)
        defer { answerer.command.signal(SIGTERM); _ = answerer.command.wait() }
        let browser = try DevToolsBrowser()
        defer { browser.stop() }
        try body(try Self.loggedIn(browser, port: answerer.port, door: door), door, answerer)
    }

    /// An H.264 door: the page is answered with the offer's H.264 payload type
    /// of the door's profile, once the door's video flows, and decodes it.
    func testAnH264DoorsVideoIsDecodedInThePage() throws {
        try withOnePhone(door: { $0.media.codec = .h264 }) { phone, door, answerer in
            door.ring()
            waitUntil("ringing") { phone.string("document.body.dataset.state") == "ringing" }
            waitUntil("the door's H.264 decoded in the page", timeout: 15) { Self.decodedFrames(phone) > 5 }
            XCTAssertEqual(phone.string("String(document.getElementById('video').videoWidth)"), "640", answerer.command.stderr)
        }
    }

    /// A page of the answerer at `port`, logged in, with the door online.
    static func loggedIn(_ browser: DevToolsBrowser, port: UInt16, door: SimulatedDoor, host: String = "127.0.0.1") throws -> DevToolsBrowser.Page {
        let url = "https://\(host):\(port)/"
        let phone = try browser.open(url)
        func loginShown() -> Bool { phone.string("String(document.getElementById('login').hidden)") == "false" }
        // A first load that failed (a phone's link just made, a busy machine) is tried again, as a person would.
        for _ in 0..<2 where !MainContext.run(timeout: 6, until: loginShown) {
            print("the page at \(url) shows no login form (at \(phone.string("location.href"))); loading it again")
            try phone.evaluate("location.replace('\(url)')")
        }
        waitUntil("the login form", timeout: 15) { loginShown() }
        try phone.evaluate("document.getElementById('password').value = '\(WebCommandTests.password)'; document.getElementById('login-form').requestSubmit()")
        waitUntil("logged in") { phone.string("document.body.dataset.state") == "idle" && door.isReady }
        return phone
    }
}
