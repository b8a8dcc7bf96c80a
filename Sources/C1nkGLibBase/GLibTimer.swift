import CGLib

/// A one-shot or repeating timer on the main context (`MainContext`).
/// Cancelled when `cancel()` is called or the timer is released.
public final class GLibTimer {
    private var sourceID: guint = 0
    private let repeats: Bool
    private let fire: () -> Void

    /// Starts a timer that fires after `seconds` (and every `seconds` when `repeats`).
    public init(after seconds: Double, repeats: Bool = false, _ fire: @escaping () -> Void) {
        self.repeats = repeats
        self.fire = fire
        let milliseconds = guint(max(0, (seconds * 1000).rounded()))
        let weakBox = Unmanaged.passRetained(WeakBox(self)).toOpaque()
        let source = g_timeout_source_new(milliseconds)!
        g_source_set_callback(source, { data in
            let box = Unmanaged<WeakBox<GLibTimer>>.fromOpaque(data!).takeUnretainedValue()
            guard let timer = box.object else { return 0 }
            return timer.fired() ? 1 : 0
        }, weakBox, { data in
            Unmanaged<WeakBox<GLibTimer>>.fromOpaque(data!).release()
        })
        sourceID = MainContext.attach(source)
    }

    public var isActive: Bool { sourceID != 0 }

    public func cancel() {
        if sourceID != 0 { MainContext.remove(sourceID); sourceID = 0 }
    }

    private func fired() -> Bool {
        if !repeats { sourceID = 0 }
        fire()
        return repeats && sourceID != 0
    }

    deinit { cancel() }
}

package final class WeakBox<T: AnyObject> {
    package weak var object: T?
    package init(_ object: T) { self.object = object }
}
