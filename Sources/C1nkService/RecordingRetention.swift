import C1nkGLibBase
import FoundationEssentials
import Glibc

/// Applies a `RetentionPolicy` to the files a `RecordingPattern` names: once
/// an hour (the command's timer) and before each new recording. Deletes only
/// regular files that match the pattern, never a file being recorded.
public final class RecordingRetention {
    public let policy: RetentionPolicy
    /// The files that may be deleted; nil when the policy deletes nothing.
    public let pattern: RecordingPattern?
    /// The folder whose disk must have room.
    public let folder: String
    /// Recordings in progress, never deleted.
    public var protected: Set<String> = []
    /// Called for each file deleted (the `deleted` event).
    public var onDeleted: ((_ path: String, _ reason: RetentionPolicy.Reason) -> Void)?

    /// Refuses a `--record` template that could match files c1nk did not
    /// write when the policy deletes (see `RecordingPattern`).
    public init(policy: RetentionPolicy, template: String, option: String = "--record") throws {
        self.policy = policy
        pattern = policy.deletes ? try RecordingPattern(template: template, option: option) : nil
        let fixed = template.split(separator: "/", omittingEmptySubsequences: false).dropLast()
            .prefix { !$0.contains("{") && !$0.contains("%") }.joined(separator: "/")
        folder = fixed.isEmpty ? (template.hasPrefix("/") ? "/" : ".") : fixed
    }

    /// The recordings on disk, oldest first.
    public func recordings() -> [RetentionPolicy.File] {
        guard let pattern else { return [] }
        var result: [RetentionPolicy.File] = []
        func walk(_ folder: String, level: Int) {
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return }
            for name in names {
                let path = folder == "/" ? "/" + name : folder + "/" + name
                var info = stat()
                guard lstat(path, &info) == 0 else { continue }
                let type = info.st_mode & S_IFMT
                if type == S_IFDIR && level < pattern.depth {
                    walk(path, level: level + 1)
                } else if type == S_IFREG && level == pattern.depth && pattern.matches(path) {
                    let modified = Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9
                    result.append(.init(path: path, modified: modified, bytes: Int64(info.st_size)))
                }
            }
        }
        walk(pattern.root, level: 0)
        return result.sorted { $0.modified < $1.modified }
    }

    /// Deletes what the policy says; returns the paths deleted.
    @discardableResult
    public func sweep(now: Double = Date().timeIntervalSince1970) -> [String] {
        guard policy.deletes else { return [] }
        var deleted: [String] = []
        for (path, reason) in policy.plan(recordings(), now: now, protected: protected) {
            if unlink(path) == 0 {
                deleted.append(path)
                onDeleted?(path, reason)
            } else {
                Log.app.warning("retention: cannot delete \(path): \(String(cString: strerror(errno)))")
            }
        }
        return deleted
    }

    /// Free bytes on the recordings' disk, or nil when the folder cannot be read.
    public func freeBytes() -> Int64? {
        var info = statvfs()
        guard statvfs(folder, &info) == 0 else { return nil }
        return Int64(info.f_bavail) * Int64(info.f_frsize)
    }

    /// Run before a recording starts: sweeps, then returns why the recording
    /// must not start (too little free space), or nil.
    public func prepareForRecording() -> String? {
        sweep()
        guard let free = freeBytes() else { return nil }
        if policy.allowsRecording(freeBytes: free) { return nil }
        let gb = { (bytes: Double) in String(printf: "%.2f GB", bytes / 1e9) }
        return "not recording this call: \(gb(Double(free))) free in \(folder), below the floor of \(gb(policy.minimumFreeGigabytes * 1e9)) (--min-free-gb); free space or lower --keep-gb/--keep-days"
    }
}
