import C1nkGLib
import C1nkPipeline
import C1nkProbes
import Foundation

/// Reads the door's time stamps in the frames that reach the answerer's
/// screen: the answerer's `--sink` is `shmsink` (`sinkDescription`), and
/// this process takes each frame from that shared memory as it is rendered
/// and reads its stamp. The same sink with or without the wall display, so
/// the figure is what any sink (kmssink) would be given, after everything
/// the answerer does to the frame.
final class ScreenStampReader: @unchecked Sendable {
    let width: Int
    let height: Int
    let socketPath: String
    private var pipeline: OwnedPipeline?
    private var started: Double = 0
    /// The frames read, across reconnections.
    private let stamps: StampAgeProbe

    init(width: Int, height: Int, directory: String) {
        self.width = width
        self.height = height
        socketPath = directory + "/screen.shm"
        stamps = StampAgeProbe(width: width, height: height)
    }

    deinit { stop() }

    /// The answerer's `--sink`: renders into shared memory, never waits for a
    /// reader, and each frame at once (`sync=false`, the answerer's default
    /// for a video sink, said here: a shmsink left to sync never started).
    /// Upstream allocates as for any sink (`drop-allocation`): frames in
    /// shmsink's own memory stalled the display's compositor once the area
    /// filled.
    var sinkDescription: String {
        "identity drop-allocation=true ! shmsink socket-path=\(socketPath) wait-for-connection=false sync=false shm-size=\(width * height * 3 / 2 * 16)"
    }

    /// Connects once the sink's socket exists (the call's pipeline or the
    /// display made it); again if the connection fails. Called while polling.
    func connectIfReady() {
        if let pipeline {
            guard pipeline.takeEndMessages() else { return }
            release()
        }
        guard FileManager.default.fileExists(atPath: socketPath),
              MainContext.monotonicSeconds() - started > 0.5 else { return }
        started = MainContext.monotonicSeconds()
        let description = "shmsrc name=screen socket-path=\(socketPath) is-live=true"
            + " ! video/x-raw,format=I420,width=\(width),height=\(height),framerate=30/1 ! fakesink name=reader sync=false"
        guard let made = try? OwnedPipeline(launching: description, name: "screen-reader") else { return }
        pipeline = made
        if let pad = made.pipeline.element(named: "reader")?.staticPad("sink") { stamps.attach(to: pad) }
        made.start()
    }

    /// Milliseconds from capture to the screen, of every frame read so far,
    /// and the frames whose stamp could not be read.
    func figures(leavingOutFirst count: Int = 60) -> (LatencyStats, unreadable: Int) {
        let figures = stamps.figures
        return (LatencyStats(Array(figures.ages.dropFirst(count))), figures.unreadable)
    }

    func stop() { release() }

    private func release() {
        guard let pipeline else { return }
        pipeline.release()
        self.pipeline = nil
    }
}
