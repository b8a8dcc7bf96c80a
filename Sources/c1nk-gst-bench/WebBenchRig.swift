import C1nkDoor
import C1nkGLib
import C1nkLocal
import Foundation
import Glibc

/// What the web page's benchmarks stand on: the local server, the simulated
/// door, `c1nk-gst-answer --web-port --measure` and headless Chromium with
/// the page open and logged in (on `network` when given). Torn down in
/// reverse order when released.
final class WebBenchRig {
    let server: SignalServer
    let door: SimulatedDoor
    let directory: String
    let events: String
    let answerer: Process
    let browser: DevToolsBrowser
    let page: DevToolsBrowser.Page

    init(door configure: (inout SimulatedDoor.Options) -> Void, microphone: String = "audiotestsrc is-live=true",
         network: PhoneNetwork?, browserFlags: [String] = [], probe: String) throws {
        server = try SignalServer()
        var doorOptions = SimulatedDoor.Options(serverURL: server.url)
        doorOptions.media.ice = .loopback
        doorOptions.media.stampTime = true
        configure(&doorOptions)
        let door = try SimulatedDoor(doorOptions)
        self.door = door
        door.start()
        directory = NSTemporaryDirectory() + "c1nk-web-bench-" + UUID().uuidString.prefix(8)
        events = directory + "/events.jsonl"
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            try WebBenchmark.setPassword(directory + "/web-password")
        } catch {
            door.stop()
            server.stop()
            throw error
        }
        let port = UInt16.random(in: 20_000...40_000)
        setenv("XDG_STATE_HOME", directory, 1)
        answerer = try AnswererProcess.spawn([
            "--server", server.url, "--device-id-file", directory + "/id", "--answer", "manual", "--measure", "--events", events,
            "--stun", "none", "--ice-local-ip", "127.0.0.1", "--sink", "fakesink", "--audio-sink", "fakesink",
            "--audio-source", microphone, "--ringtone", "none", "--quiet",
            "--web-port", String(port), "--web-password-file", directory + "/web-password"]
            + (network.map { ["--ice-local-ip", $0.hostAddress] } ?? []))
        let server = self.server
        guard MainContext.run(timeout: 15, until: { door.isReady && server.connectedAppIds.count == 1 }) else {
            answerer.terminate()
            door.stop()
            server.stop()
            throw BenchError("the answerer did not connect")
        }
        browser = try DevToolsBrowser(extraFlags: browserFlags, network: network)
        page = try browser.open("https://\(network?.hostAddress ?? "127.0.0.1"):\(port)/", beforeLoad: probe)
        let page = self.page
        guard MainContext.run(timeout: 15, until: { page.string("document.body.dataset.state") == "login" && page.string("String(document.getElementById('login').hidden)") == "false" }) else {
            throw BenchError("the page did not load")
        }
        try page.evaluate("document.getElementById('password').value = '\(WebBenchmark.password)'; document.getElementById('login-form').requestSubmit()")
        guard MainContext.run(timeout: 10, until: { page.string("document.body.dataset.state") == "idle" }) else { throw BenchError("no login") }
        MainContext.spin(1)
    }

    deinit {
        browser.stop()
        answerer.terminate()
        door.stop()
        server.stop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Hangs up from the page and waits for the answerer's `ended` and the page's idle.
    func hangUp() throws {
        let ended = WebBenchmark.count("ended", in: events)
        try page.evaluate("document.getElementById('hangup').click()")
        guard MainContext.run(timeout: 10, until: { WebBenchmark.count("ended", in: self.events) > ended && self.page.string("document.body.dataset.state") == "idle" }) else {
            throw BenchError("the call did not end")
        }
    }
}
