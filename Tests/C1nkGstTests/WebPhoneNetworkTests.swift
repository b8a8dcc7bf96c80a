import Foundation
import Glibc
import XCTest
@testable import C1nkDoor
@testable import C1nkGLib
@testable import C1nkLocal

/// The page in a browser that is a phone on a network of its own
/// (`PhoneNetwork`: a namespace joined by a veth pair, or by the jitter
/// relay), against the real answerer: the picture crosses it, stops during
/// a drop-out and comes back after it; loss and jitter are really applied.
/// Needs root for the namespace; skipped, saying why, where there is none.
final class WebPhoneNetworkTests: XCTestCase {
    private func withPhone(on link: PhoneLink, _ body: (DevToolsBrowser.Page, SimulatedDoor, PhoneNetwork) throws -> Void) throws {
        if let reason = PhoneNetwork.unavailableReason { throw XCTSkip(reason) }
        guard BrowserDoor.executable != nil else { throw XCTSkip("headless Chromium is not installed") }
        Log.echoToStandardError = false
        defer { Log.echoToStandardError = true }
        let network = try PhoneNetwork(link)
        defer { network.remove() }
        let (server, door) = try AnswerCommandTests.serverAndDoor(configure: { $0.media.stampTime = true }) { _ in }
        defer { door.stop(); server.stop() }
        let answerer = try WebCommandTests.startAnswerer(server: server, extra: ["--ice-local-ip", network.hostAddress])
        defer { answerer.command.signal(SIGTERM); _ = answerer.command.wait() }
        let browser = try DevToolsBrowser(network: network)
        defer { browser.stop() }
        let phone = try WebPageTests.loggedIn(browser, port: answerer.port, door: door, host: network.hostAddress)
        door.ring()
        waitUntil("ringing in the phone") { phone.string("document.body.dataset.state") == "ringing" }
        try phone.evaluate("document.getElementById('accept').click()")
        waitUntil("the door's video in the phone", timeout: 15) { WebPageTests.decodedFrames(phone) > 10 }
        try body(phone, door, network)
    }

    func testThePictureStopsInADropOutAndComesBackAfterIt() throws {
        try withPhone(on: .clean) { phone, _, network in
            try network.startDropOut()
            MainContext.spin(0.5)
            let atStart = WebPageTests.decodedFrames(phone)
            MainContext.spin(2.5)
            let during = WebPageTests.decodedFrames(phone) - atStart
            try network.endDropOut()
            XCTAssertLessThan(during, 10, "frames decoded while the phone's link dropped everything")
            let back = WebPageTests.decodedFrames(phone)
            waitUntil("the picture back after the drop-out", timeout: 15) { WebPageTests.decodedFrames(phone) > back + 30 }
            // Live again: what was resent and held during the drop-out is played out, then the picture catches up.
            var newest: Double?
            waitUntil("a live picture (< 1 s old) after the drop-out", timeout: 15) {
                newest = WebPageTests.stamp(phone)?.age
                return (newest ?? .infinity) < 1000
            }
        }
    }

    func testLossAndJitterOnThePhonesLinkAreAppliedAndThePictureGoesOn() throws {
        try withPhone(on: PhoneLink(lossPercent: 3, jitterMs: 30, jitterSpreadMs: 20)) { phone, _, network in
            let before = WebPageTests.decodedFrames(phone)
            MainContext.spin(4)
            XCTAssertGreaterThan(network.droppedPackets, 0, "nftables dropped none of the phone's packets")
            XCTAssertGreaterThan(WebPageTests.decodedFrames(phone), before + 20, "the picture stopped on a lossy, jittery link")
        }
    }
}
