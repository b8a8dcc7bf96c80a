import C1nkGLibBase
import Dispatch
import FoundationEssentials
import Glibc

/// The recordings the page lists and serves: the `.mkv`/`.mp4` files that
/// `--record`'s template can have made, below its fixed root (the folders
/// before the first one with `%` or `{`), as deep as the template's variable
/// folders go (at most `maximumDepth`). Each is named by its path relative
/// to the root: `2026/12/abc.mkv` for `DIR/%Y/%m/{callId}.mkv`. A name is
/// served only when it is one of that listing: every component a plain name
/// of `nameCharacters`, every folder a real folder and the file a regular
/// file (no symbolic link followed, no `..`, no absolute path).
///
/// The folders are read on a worker thread, never on the main context: the
/// listing and each name's check are handed back to it, through `done`.
/// `list` and `path(of:)` are called on the main context only.
public final class WebRecordings {
    public struct Recording: Equatable, Sendable {
        /// The path relative to `root`, `/`-separated.
        public let name: String
        public let bytes: Int
        /// Unix milliseconds of its last change.
        public let t: Int64
    }

    /// Folder levels below the root that are looked into, at most.
    public static let maximumDepth = 4
    /// Folder entries read for one listing, at most; the rest are not seen.
    public static let maximumEntries = 100_000
    /// Recordings one listing gives, at most (the newest).
    public static let maximumListed = 1_000

    /// The fixed folder, or nil without `--record`.
    public let root: String?
    /// Folder levels between `root` and a recording.
    public let depth: Int

    private let queue = DispatchQueue(label: "c1nk-web-recordings")
    private var walking = false
    private var waiting: [([Recording]) -> Void] = []

    /// Recordings right in `folder` (no sub-folders), or none.
    public init(folder: String?) {
        root = folder
        depth = 0
    }

    /// The recordings `--record TEMPLATE` makes, or none without one.
    public convenience init(template: String?) {
        guard let template else {
            self.init(folder: nil)
            return
        }
        let (root, depth) = Self.layout(of: template)
        self.init(root: root, depth: depth)
    }

    public init(root: String, depth: Int) {
        self.root = root
        self.depth = depth
        if depth > Self.maximumDepth {
            Log.web.warning("--record has \(depth) folder levels with a pattern below \(root): more than \(Self.maximumDepth), so the page lists no recording")
        }
    }

    /// A template's fixed folder and the number of folder levels below it
    /// (`DIR/%Y/%m/{callId}.mkv`: `DIR`, 2). A template without a pattern: its folder, 0.
    public static func layout(of template: String) -> (root: String, depth: Int) {
        let components = template.split(separator: "/", omittingEmptySubsequences: false)
        let fixed = components.prefix { !$0.contains("%") && !$0.contains("{") }
        if fixed.count == components.count {
            let folder = template.deletingLastPathComponent
            return (folder.isEmpty ? "." : folder, 0)
        }
        var root = fixed.joined(separator: "/")
        if root.isEmpty { root = template.hasPrefix("/") ? "/" : "." }
        return (root, components.count - fixed.count - 1)
    }

    // MARK: - On the main context

    /// The recordings, newest first, to `done` on the main context. A
    /// listing asked for while one is being read waits for the next one (it
    /// sees what is there now); those that wait together share it.
    public func list(_ done: @escaping ([Recording]) -> Void) {
        guard root != nil, depth <= Self.maximumDepth else { return done([]) }
        waiting.append(done)
        walkIfIdle()
    }

    /// The file of recording `name` to `done` on the main context, or nil
    /// when it is not one of the listing's.
    public func path(of name: String, _ done: @escaping (String?) -> Void) {
        guard let root, depth <= Self.maximumDepth, Self.isRecordingName(name, depth: depth) else { return done(nil) }
        let depth = depth
        let back = MainContextOnly(done)
        queue.async {
            let path = Self.resolve(name, root: root, depth: depth)
            MainContext.post { back.value(path) }
        }
    }

    private func walkIfIdle() {
        guard !walking, !waiting.isEmpty, let root else { return }
        walking = true
        let callers = waiting
        waiting = []
        let depth = depth
        let back = MainContextOnly { [self] (found: [Recording]) in
            walking = false
            for done in callers { done(found) }
            walkIfIdle()
        }
        queue.async {
            let found = Self.walk(root: root, depth: depth)
            MainContext.post { back.value(found) }
        }
    }

    public static func json(_ recordings: [Recording]) -> [[String: Any]] {
        recordings.map { ["name": $0.name, "bytes": $0.bytes, "t": $0.t] }
    }

    // MARK: - On the worker (pure file system reads)

    /// The characters of a name's components besides ASCII letters and digits.
    public static let nameCharacters: Set<UInt8> = Set(" ._-+:,".utf8)

    /// One component of a name: not empty, not hidden (so neither `.` nor
    /// `..`), of letters, digits and `nameCharacters`, at most 255 bytes.
    static func isPlainComponent<S: StringProtocol>(_ component: S) -> Bool {
        let bytes = component.utf8
        guard !bytes.isEmpty, bytes.count <= 255, bytes.first != UInt8(ascii: ".") else { return false }
        return bytes.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): return true
            default: return nameCharacters.contains(byte)
            }
        }
    }

    /// `depth` folders and a file name, `/`-separated, each a plain component, the file `.mkv` or `.mp4`.
    static func isRecordingName(_ name: String, depth: Int) -> Bool {
        guard name.utf8.count <= 1024, name.hasSuffix(".mkv") || name.hasSuffix(".mp4") else { return false }
        let components = name.split(separator: "/", omittingEmptySubsequences: false)
        return components.count == depth + 1 && components.allSatisfy(isPlainComponent)
    }

    /// What `lstat` says `path` is: a folder, a regular file (size, mtime), or something else.
    private enum Entry {
        case folder
        case file(bytes: Int, t: Int64)
        case other
    }

    private static func entry(_ path: String) -> Entry {
        var info = stat()
        guard lstat(path, &info) == 0 else { return .other }
        switch info.st_mode & S_IFMT {
        case S_IFDIR: return .folder
        case S_IFREG: return .file(bytes: Int(info.st_size), t: Int64(info.st_mtim.tv_sec) * 1000 + Int64(info.st_mtim.tv_nsec) / 1_000_000)
        default: return .other
        }
    }

    private static func join(_ folder: String, _ name: String) -> String {
        folder.hasSuffix("/") ? folder + name : folder + "/" + name
    }

    /// The recordings below `root`, newest first, at most `maximumListed`,
    /// after reading at most `maximumEntries` folder entries.
    static func walk(root: String, depth: Int) -> [Recording] {
        guard depth <= maximumDepth else { return [] }
        var found: [Recording] = []
        var read = 0
        func visit(_ folder: String, name prefix: String, level: Int) {
            guard read < maximumEntries, let directory = opendir(folder) else { return }
            defer { closedir(directory) }
            while read < maximumEntries, let item = readdir(directory) {
                read += 1
                let name = withUnsafeBytes(of: item.pointee.d_name) { raw in
                    String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
                }
                guard isPlainComponent(name) else { continue }
                let path = join(folder, name)
                let relative = prefix.isEmpty ? name : prefix + "/" + name
                if level < depth {
                    if case .folder = entry(path) { visit(path, name: relative, level: level + 1) }
                } else if name.hasSuffix(".mkv") || name.hasSuffix(".mp4"), case let .file(bytes, t) = entry(path) {
                    found.append(Recording(name: relative, bytes: bytes, t: t))
                }
            }
        }
        visit(root, name: "", level: 0)
        found.sort { $0.t != $1.t ? $0.t > $1.t : $0.name > $1.name }
        return Array(found.prefix(maximumListed))
    }

    /// The path of `name` when the listing would hold it: a recording name,
    /// each folder on the way a real folder, the file a regular one.
    static func resolve(_ name: String, root: String, depth: Int) -> String? {
        guard depth <= maximumDepth, isRecordingName(name, depth: depth) else { return nil }
        var path = root
        let components = name.split(separator: "/")
        for (index, component) in components.enumerated() {
            path = join(path, String(component))
            switch (entry(path), index == components.count - 1) {
            case (.folder, false), (.file, true): continue
            default: return nil
            }
        }
        return path
    }
}

/// A closure of the main context carried through the worker untouched and
/// called back on the main context only.
private final class MainContextOnly<Argument>: @unchecked Sendable {
    let value: (Argument) -> Void
    init(_ value: @escaping (Argument) -> Void) { self.value = value }
}
