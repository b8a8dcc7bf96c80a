import C1nkGLib
import CGStreamer
import FoundationEssentials

/// Reads the door's `FrameStamp` in each tightly packed frame passing the
/// pads it is attached to (the luma plane first, rows of exactly `width`
/// bytes: raw I420 from shared memory) and keeps how old each frame is.
/// Per buffer, on the streaming thread: a map, a read, and a number stored
/// under a lock.
public final class StampAgeProbe: @unchecked Sendable {
    public let width: Int
    public let height: Int
    private let lock = ThreadLock()
    private var ages: [Double] = []
    private var unreadable = 0

    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    /// Reads the frames passing `pad` from now on (also after another pad,
    /// when a reader reconnects: the figures add up).
    public func attach(to pad: Pad) {
        let (width, height) = (self.width, self.height)
        pad.addProbe(GST_PAD_PROBE_TYPE_BUFFER) { [weak self] info in
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

    /// The age of every frame read so far (ms, in order), and how many frames
    /// carried no readable stamp.
    public var figures: (ages: [Double], unreadable: Int) { lock.withLock { (ages, unreadable) } }
}
