import XCTest
@testable import C1nkDoor
@testable import C1nkGLib

/// Echo cancellation measured on an acoustic loop (`EchoLoop`): the door's
/// own voice coming back, with and without processing, while the resident
/// talks too. Goals (docs/benchmarks.md): ERLE ≥ 25 dB after 2 s, ≥ 80 % of
/// the resident's energy kept; the benchmark measures them. The bounds here
/// are looser: they catch a canceller that does not cancel, or that cuts the
/// resident's voice, not the spread of single calls (double talk 54–145 %
/// kept in single runs on this machine).
final class EchoTests: XCTestCase {
    func testEchoIsCancelledAndTheResidentStillHeard() throws {
        Log.echoToStandardError = false
        defer { Log.echoToStandardError = true }
        var run = EchoLoop.Run()
        run.echoCancel = false
        let off = try EchoLoop.run(run, ice: .loopback)
        run.echoCancel = true
        var on = try EchoLoop.run(run, ice: .loopback)
        func kept(_ on: EchoLoop.Figures) -> Double { pow(10, (on.residentBandDB - off.residentBandDB) / 10) }
        if off.doorBandDB - on.doorBandDB <= 15 || kept(on) <= 0.4 {
            // One more try: on a machine loaded by other processes the
            // interaudio loop itself can starve and change its delay mid-run
            // (1 run in ~10 measured this way), and double talk varies from
            // call to call; a broken canceller fails both.
            print("echo loop: \(off.doorBandDB - on.doorBandDB) dB, \(Int(kept(on) * 100)) % kept on the first try; measuring again")
            on = try EchoLoop.run(run, ice: .loopback)
        }
        let erle = off.doorBandDB - on.doorBandDB
        let kept = kept(on)
        print("echo loop: door band \(off.doorBandDB) dB without processing, \(on.doorBandDB) dB with: ERLE \(erle) dB; resident kept \(Int(kept * 100)) %")
        XCTAssertGreaterThan(off.doorBandDB, -40, "the loop returns the door's voice when nothing cancels it")
        XCTAssertGreaterThan(erle, 15, "echo return loss enhancement")
        XCTAssertGreaterThan(kept, 0.4, "double talk: the resident's voice still reaches the door")
    }
}
