import C1nkGLibBase
import FoundationEssentials

/// Checks login passwords on a worker thread of its own, so a yescrypt hash
/// (~12 ms on a PC, far more on a Pi) never holds up the main context; each
/// result is posted back to it. At most `capacity` checks wait or run at
/// once: a try beyond that is refused at once, unhashed, so a flood of
/// logins cannot pile up work. Used from the main context only.
public final class PasswordVerifier {
    /// One check handed to the worker; `done` runs on the main context only.
    private final class Job: @unchecked Sendable {
        let password: String
        let hash: String
        let done: (Bool) -> Void
        init(password: String, hash: String, done: @escaping (Bool) -> Void) {
            self.password = password
            self.hash = hash
            self.done = done
        }
    }

    /// The worker's side: the jobs, and the thread that takes them (it holds
    /// this, not the verifier, so the verifier's end ends the thread).
    private final class WorkQueue: @unchecked Sendable {
        private let condition = ThreadCondition()
        private var jobs: [Job] = []
        private var started = false
        private var stopping = false

        func add(_ job: Job) {
            condition.lock()
            jobs.append(job)
            if !started {
                started = true
                detachThread(named: "c1nk-web-password") { [self] in work() }
            }
            condition.signal()
            condition.unlock()
        }

        func stop() {
            condition.lock()
            stopping = true
            condition.signal()
            condition.unlock()
        }

        private func work() {
            while true {
                condition.lock()
                while jobs.isEmpty && !stopping { condition.wait() }
                if jobs.isEmpty {
                    condition.unlock()
                    return
                }
                let job = jobs.removeFirst()
                condition.unlock()
                let ok = PasswordHash.verify(job.password, hash: job.hash)
                MainContext.post { job.done(ok) }
            }
        }
    }

    public let capacity: Int
    /// Checks waiting or running (main context).
    public private(set) var pending = 0
    /// Checks refused because `capacity` were pending (main context).
    public private(set) var refused = 0
    private let queue = WorkQueue()

    public init(capacity: Int = 4) { self.capacity = capacity }

    /// Checks `password` against `hash` and calls `done` on the main context
    /// with the result; false (and `done` never called) when `capacity`
    /// checks are pending already.
    public func verify(_ password: String, hash: String, done: @escaping (Bool) -> Void) -> Bool {
        guard pending < capacity else {
            refused += 1
            return false
        }
        pending += 1
        queue.add(Job(password: password, hash: hash) { [weak self] ok in
            self?.pending -= 1
            done(ok)
        })
        return true
    }

    /// The worker ends once its queue is empty.
    deinit { queue.stop() }
}
