import Foundation

/// The recordings the page lists and serves: the `.mkv`/`.mp4` files of the
/// recording folder (`--record`'s), by name. A name is served only when it
/// is one of that listing: no path, no other file.
public struct WebRecordings: Sendable {
    public struct Recording: Equatable, Sendable {
        public let name: String
        public let bytes: Int
        /// Unix milliseconds of its last change.
        public let t: Int64
    }

    /// The folder, or nil without `--record`.
    public let folder: String?

    public init(folder: String?) { self.folder = folder }

    /// Newest first.
    public func list() -> [Recording] {
        guard let folder, let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return [] }
        var result: [Recording] = []
        for name in names where Self.isRecordingName(name) {
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: folder + "/" + name),
                  attributes[.type] as? FileAttributeType == .typeRegular else { continue }
            let bytes = (attributes[.size] as? NSNumber)?.intValue ?? 0
            let date = attributes[.modificationDate] as? Date ?? Date(timeIntervalSince1970: 0)
            result.append(Recording(name: name, bytes: bytes, t: Int64(date.timeIntervalSince1970 * 1000)))
        }
        return result.sorted { $0.t > $1.t }
    }

    /// The file of recording `name`, or nil when it is not one of ours.
    public func path(of name: String) -> String? {
        guard let folder, Self.isRecordingName(name), list().contains(where: { $0.name == name }) else { return nil }
        return folder + "/" + name
    }

    static func isRecordingName(_ name: String) -> Bool {
        !name.hasPrefix(".") && !name.contains("/") && (name.hasSuffix(".mkv") || name.hasSuffix(".mp4"))
    }

    public var json: [[String: Any]] {
        list().map { ["name": $0.name, "bytes": $0.bytes, "t": $0.t] }
    }
}
