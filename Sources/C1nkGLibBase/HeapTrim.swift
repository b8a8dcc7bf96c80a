import CGLib
import FoundationEssentials
import Glibc

/// Gives the heap's free memory back to the system a little after a call
/// has ended (glibc's `malloc_trim(0)`, every arena).
///
/// A call's streaming threads allocate from glibc's per-thread arenas, and
/// freed memory stays in them as scattered free pages: the resident size of a
/// long-running answerer creeps up call after call without any object being
/// kept (docs/benchmarks.md, "Soak"). Trimming once the pipeline has been
/// released (its threads joined) returns those pages. A trim takes 10–15 ms here
/// and holds each arena's lock while it runs, so it runs on a thread of its
/// own (a ring then finds the main context free) and only while no call is
/// in progress (a streaming thread waiting for an arena would make the
/// call's packets miss a 20 ms jitterbuffer).
public final class HeapTrim {
    private var timer: GLibTimer?
    private let delay: Double
    /// How many trims ran (for tests).
    public private(set) var count = 0
    /// Whether the heap may be trimmed now (no call in progress); when not,
    /// the trim is tried again `delay` seconds later.
    public var isQuiet: () -> Bool = { true }

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
            guard self.isQuiet() else { return self.schedule() }
            self.count += 1
            g_thread_unref(g_thread_new("c1nk-heap-trim", { _ in
                _ = c1nk_malloc_trim()
                Log.app.debug("heap trimmed: \(c1nk_malloc_in_use() / 1024) KiB in use, \(c1nk_malloc_held() / 1024) KiB held by malloc")
                return nil
            }, nil))
        }
    }
}
