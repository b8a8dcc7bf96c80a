import CGStreamer
import Glibc

/// Gives the heap's free memory back to the system a little after a call
/// has ended (glibc's `malloc_trim(0)`, every arena).
///
/// A call's streaming threads allocate from glibc's per-thread arenas, and
/// freed memory stays in them as scattered free pages: the resident size of a
/// long-running answerer creeps up call after call without any object being
/// kept (docs/benchmarks.md, "Soak"). Trimming once the pipeline has been
/// released (its threads joined) returns those pages. It costs a few
/// milliseconds on the main context, once a call.
public final class HeapTrim {
    private var timer: GLibTimer?
    private let delay: Double
    /// How many trims ran (for tests).
    public private(set) var count = 0

    /// `delay`: seconds after the request, so that what the teardown frees
    /// late (a finalised recording, the last messages) is free by then.
    public init(delay: Double = 1) { self.delay = delay }

    /// Limits glibc to `count` malloc arenas (instead of 8 a core) unless
    /// MALLOC_ARENA_MAX says otherwise. Every call starts new streaming
    /// threads, and each new arena keeps its own high-water mark of freed
    /// memory. For a command, before it starts threads: a library must not
    /// change its host's allocator.
    public static func limitArenas(to count: Int32 = 2) {
        guard getenv("MALLOC_ARENA_MAX") == nil else { return }
        _ = c1nk_malloc_arena_max(count)
    }

    /// Trims `delay` seconds from now; a request while one is pending moves it.
    public func schedule() {
        timer?.cancel()
        timer = GLibTimer(after: delay) { [weak self] in
            guard let self else { return }
            self.timer = nil
            self.count += 1
            _ = c1nk_malloc_trim()
        }
    }
}
