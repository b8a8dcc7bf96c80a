import Synchronization

/// Counts frames from a streaming thread.
final class FrameCounter: Sendable {
    package let value = Atomic<Int>(0)
}
