import C1nkGLibBase
import Glibc
import XCTest

final class MainLoopLatenessTests: XCTestCase {
    /// A main context held 80 ms shows as a tick that late; an idle one as ticks on time.
    func testAHeldMainContextShowsAsLateness() {
        let lateness = MainLoopLateness(interval: 0.01)
        MainContext.spin(0.2)
        let idle = lateness.samples.count
        XCTAssertGreaterThan(idle, 5)
        MainContext.post { usleep(80_000) }
        MainContext.spin(0.2)
        lateness.stop()
        XCTAssertGreaterThanOrEqual(lateness.maximum, 0.06, "\(lateness.samples)")
        XCTAssertGreaterThanOrEqual(lateness.percentile(1), lateness.percentile(0.5))
        let before = lateness.samples.count
        MainContext.spin(0.05)
        XCTAssertEqual(lateness.samples.count, before, "stopped")
    }
}
