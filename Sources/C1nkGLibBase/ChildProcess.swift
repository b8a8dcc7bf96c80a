import Glibc

/// A program run as a child, as Foundation's `Process` ran it (in a process group
/// of its own, signals at their defaults, no descriptors but the three standard
/// ones): the answerer does not link Foundation, to keep ICU out of its memory.
package final class ChildProcess {
    /// Where a standard stream of the child goes.
    package enum Stream {
        /// This process's own.
        case inherited
        /// `/dev/null`.
        case null
        /// The file at a path, opened for writing (it must exist).
        case file(String)
        /// A pipe whose other end this process reads (`outputPipe`, `errorPipe`).
        case pipe
    }

    package struct Failure: Error, CustomStringConvertible {
        package let description: String
    }

    package let processIdentifier: pid_t
    /// The reading end of the child's standard output or error, for `.pipe`; this process closes it.
    package private(set) var outputPipe: Int32?
    package private(set) var errorPipe: Int32?
    private var status: Int32?

    /// Starts `executable` (a full path; no search) with `arguments`.
    package init(_ executable: String, _ arguments: [String], input: Stream = .inherited, output: Stream = .inherited,
                 error: Stream = .inherited) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var toClose: [Int32] = []
        var pipes: [Int32: Int32] = [:]
        defer { for fd in toClose { close(fd) } }
        for (target, stream) in [(Int32(0), input), (1, output), (2, error)] {
            switch stream {
            case .inherited: break
            case .null:
                posix_spawn_file_actions_addopen(&actions, target, "/dev/null", target == 0 ? O_RDONLY : O_WRONLY, 0)
            case .file(let path):
                posix_spawn_file_actions_addopen(&actions, target, path, O_WRONLY, 0)
            case .pipe:
                var ends: [Int32] = [-1, -1]
                guard pipe(&ends) == 0 else { throw Failure(description: "cannot make a pipe: errno \(errno)") }
                for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
                let (own, child) = target == 0 ? (ends[1], ends[0]) : (ends[0], ends[1])
                posix_spawn_file_actions_adddup2(&actions, child, target)
                toClose.append(child)
                pipes[target] = own
            }
        }
        for fd in Self.openDescriptors() where fd > 2 { posix_spawn_file_actions_addclose(&actions, fd) }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t(), mask = sigset_t()
        sigemptyset(&defaults)
        for signal in Int32(1)..<32 where signal != SIGKILL && signal != SIGSTOP { sigaddset(&defaults, signal) }
        sigemptyset(&mask)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setsigmask(&attributes, &mask)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(Int32(POSIX_SPAWN_SETPGROUP) | Int32(POSIX_SPAWN_SETSIGDEF) | Int32(POSIX_SPAWN_SETSIGMASK)))
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, executable, &actions, &attributes, argv, environ)
        guard result == 0 else {
            for fd in pipes.values { close(fd) }
            throw Failure(description: "cannot run \(executable): \(String(cString: strerror(result)))")
        }
        processIdentifier = pid
        outputPipe = pipes[1]
        errorPipe = pipes[2]
    }

    deinit {
        if let outputPipe { close(outputPipe) }
        if let errorPipe { close(errorPipe) }
    }

    /// This process's open descriptors (/proc/self/fd), for the child to close:
    /// it gets the three standard ones alone.
    private static func openDescriptors() -> [Int32] {
        guard let folder = opendir("/proc/self/fd") else { return [] }
        defer { closedir(folder) }
        var result: [Int32] = []
        while let entry = readdir(folder) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if let fd = Int32(name) { result.append(fd) }
        }
        return result
    }

    /// Whether the child has not ended yet (an ended child is reaped here).
    package var isRunning: Bool {
        guard status == nil else { return false }
        var raw: Int32 = 0
        let result = waitpid(processIdentifier, &raw, WNOHANG)
        if result == processIdentifier { status = raw; return false }
        return result == 0
    }

    /// Waits for the child to end.
    package func waitUntilExit() {
        guard status == nil else { return }
        var raw: Int32 = 0
        while waitpid(processIdentifier, &raw, 0) < 0 {
            guard errno == EINTR else { status = raw; return }
        }
        status = raw
    }

    /// The child's exit code, or the signal that ended it; after `waitUntilExit()`.
    package var terminationStatus: Int32 {
        guard let status else { return -1 }
        return status & 0x7F == 0 ? (status >> 8) & 0xFF : status & 0x7F
    }
}
