import Synchronization

/// A count kept from a streaming thread (frames, keyframe requests, events
/// a probe saw) and read from any other.
package final class FrameCounter: Sendable {
    package let value = Atomic<Int>(0)

    package init() {}
}
