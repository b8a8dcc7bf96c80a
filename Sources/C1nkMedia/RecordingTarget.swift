import C1nkGLib
import FoundationEssentials
import Glibc

/// Where and how a call is recorded (`--record PATH`).
///
/// PATH may carry `{callId}` and strftime patterns (`%Y-%m-%d_%H%M%S`),
/// expanded once (`CallFileName`: the id is made a safe file name); the
/// extension picks the container: `.mkv` (the default: Matroska, readable even
/// after a crash) or `.mp4` (fragmented MP4, likewise). An existing file is
/// never overwritten: a numbered name is chosen instead, and said. A path
/// that is a device or a FIFO (or a link to one) is written to as given.
public struct RecordingTarget: Equatable, Sendable {
    public enum Container: String, Sendable {
        case matroska = "mkv", mp4

        /// Muxer descriptions that leave a playable file even when the process
        /// is killed: Matroska writes clusters as it goes; MP4 is fragmented
        /// (one fragment per second) with its header first.
        var muxer: String {
            switch self {
            case .matroska: return "matroskamux"
            case .mp4: return "mp4mux fragment-duration=1000"
            }
        }
    }

    /// A `--record` path that cannot be used; the command reports it as a usage error.
    public struct InvalidPath: Error, CustomStringConvertible {
        public let description: String
        init(_ description: String) { self.description = description }
    }

    public let template: String
    public let container: Container

    /// Writes nothing (`/dev/null`): the pipeline keeps its recording branch
    /// but the call is not recorded (no room on the disk).
    public static let discard = RecordingTarget(template: "/dev/null", container: .matroska)

    public var discards: Bool { template == "/dev/null" }

    private init(template: String, container: Container) {
        self.template = template
        self.container = container
    }

    public init(_ template: String) throws {
        let ext = template.pathExtension.lowercased()
        switch ext {
        case "mkv": self.template = template; container = .matroska
        case "mp4": self.template = template; container = .mp4
        case "": self.template = template + ".mkv"; container = .matroska
        default:
            throw InvalidPath("--record takes a .mkv or .mp4 path, not '\(template)'")
        }
        let directory = self.template.deletingLastPathComponent
        if !directory.isEmpty && !directory.contains("{") && !directory.contains("%") {
            var isDirectory = false
            guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory else {
                throw InvalidPath("--record: the folder \(directory) does not exist")
            }
        }
    }

    /// The file for one call, never an existing one.
    /// - Parameter videoCodec: the door's codec; MP4 cannot hold VP8, so such
    ///   a call is written to Matroska instead (with a note).
    public func file(callId: String, videoCodec: String?, date: Date = Date(), note: (String) -> Void) -> (path: String, container: Container) {
        if discards { return (template, container) }
        var container = self.container
        var path = CallFileName.expand(template, callId: callId, date: date)
        if container == .mp4, videoCodec == "VP8" {
            path = path.deletingPathExtension + ".mkv"
            container = .matroska
            note("MP4 cannot hold VP8 video: recording this call to \(path) instead")
        }
        if Self.isRegularFile(path) {
            let base = path.deletingPathExtension
            let ext = path.pathExtension
            var n = 1
            while FileManager.default.fileExists(atPath: "\(base)-\(n).\(ext)") { n += 1 }
            let fresh = "\(base)-\(n).\(ext)"
            note("\(path) exists: recording to \(fresh) instead")
            path = fresh
        }
        return (path, container)
    }

    /// An existing regular file is never overwritten; a device or a FIFO
    /// (a program reading the stream) is written to as given.
    static func isRegularFile(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
    }

    /// `pattern` with its strftime conversions filled in for `date` (local time).
    static func strftime(_ pattern: String, _ date: Date) -> String {
        guard pattern.contains("%") else { return pattern }
        var time = time_t(date.timeIntervalSince1970)
        var parts = tm()
        localtime_r(&time, &parts)
        var buffer = [Int8](repeating: 0, count: 4096)
        let count = Glibc.strftime(&buffer, buffer.count, pattern, &parts)
        return count > 0 ? String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self) : pattern
    }
}
