import C1nkGLib
import C1nkMedia
import CGStreamer
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
    private var pipeline: UnsafeMutablePointer<GstElement>?
    private var started: Double = 0
    private let lock = NSLock()
    private var ages: [Double] = []
    private var unreadable = 0

    init(width: Int, height: Int, directory: String) {
        self.width = width
        self.height = height
        socketPath = directory + "/screen.shm"
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
            guard hasFailed(pipeline) else { return }
            release()
        }
        guard FileManager.default.fileExists(atPath: socketPath),
              MainContext.monotonicSeconds() - started > 0.5 else { return }
        started = MainContext.monotonicSeconds()
        let description = "shmsrc name=screen socket-path=\(socketPath) is-live=true"
            + " ! video/x-raw,format=I420,width=\(width),height=\(height),framerate=30/1 ! fakesink name=reader sync=false"
        var error: UnsafeMutablePointer<GError>?
        guard let made = gst_parse_launch(description, &error) else {
            g_clear_error(&error)
            return
        }
        pipeline = made
        if let sink = Gst.find("reader", in: made), let pad = gst_element_get_static_pad(sink, "sink") {
            watch(pad)
            gst_object_unref(UnsafeMutableRawPointer(pad))
            gst_object_unref(UnsafeMutableRawPointer(sink))
        }
        gst_element_set_state(made, GST_STATE_PLAYING)
    }

    /// Milliseconds from capture to the screen, of every frame read so far,
    /// and the frames whose stamp could not be read.
    func figures(leavingOutFirst count: Int = 60) -> (LatencyStats, unreadable: Int) {
        lock.lock()
        defer { lock.unlock() }
        return (LatencyStats(Array(ages.dropFirst(count))), unreadable)
    }

    func stop() { release() }

    private func release() {
        guard let pipeline else { return }
        gst_element_set_state(pipeline, GST_STATE_NULL)
        gst_object_unref(UnsafeMutableRawPointer(pipeline))
        self.pipeline = nil
    }

    private func hasFailed(_ pipeline: UnsafeMutablePointer<GstElement>) -> Bool {
        guard let bus = gst_element_get_bus(pipeline) else { return false }
        defer { gst_object_unref(UnsafeMutableRawPointer(bus)) }
        var failed = false
        while let message = gst_bus_pop_filtered(bus, GstMessageType(rawValue: GST_MESSAGE_ERROR.rawValue | GST_MESSAGE_EOS.rawValue)) {
            failed = true
            gst_mini_object_unref(UnsafeMutableRawPointer(message).assumingMemoryBound(to: GstMiniObject.self))
        }
        return failed
    }

    /// Reads each frame's stamp on the reader's streaming thread: a map, a
    /// read and a number stored under the lock.
    private func watch(_ pad: UnsafeMutablePointer<GstPad>) {
        let (width, height) = (self.width, self.height)
        PadProbe.add(pad, GST_PAD_PROBE_TYPE_BUFFER) { [weak self] info in
            guard let self, let buffer = info.pointee.data?.assumingMemoryBound(to: GstBuffer.self) else { return GST_PAD_PROBE_OK }
            var map = GstMapInfo()
            guard gst_buffer_map(buffer, &map, GST_MAP_READ) != 0 else { return GST_PAD_PROBE_OK }
            let stamp = map.size >= width * height ? FrameStamp.readStamp(luma: map.data, stride: width, width: width, height: height) : nil
            gst_buffer_unmap(buffer, &map)
            let age = stamp.flatMap { FrameStamp.age(of: $0.milliseconds) }
            self.lock.lock()
            if let age { self.ages.append(age) } else { self.unreadable += 1 }
            self.lock.unlock()
            return GST_PAD_PROBE_OK
        }
    }
}
