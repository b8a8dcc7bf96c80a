import C1nkGLibBase
import C1nkProtocol
import FoundationEssentials
import Glibc

/// The device's persistent id: a UUID created once and kept in a file only
/// its owner can read (the Keychain item `eu.c1nk.deviceId` of the iOS app).
public struct DeviceIdentity: Equatable {
    /// The key under which the id is stored, as on iOS.
    public static let storageKey = "eu.c1nk.deviceId"

    public let id: String
    public let path: String

    public enum Failure: Error, CustomStringConvertible {
        case unreadable(path: String, reason: String)
        case unwritable(path: String, reason: String)

        public var description: String {
            switch self {
            case let .unreadable(path, reason):
                return "cannot read the device id file \(path) (\(reason)); fix its permissions or pass --device-id-file with another path"
            case let .unwritable(path, reason):
                return "cannot write the device id file \(path) (\(reason)); pass --device-id-file with a writable path"
            }
        }
    }

    /// `$XDG_STATE_HOME/c1nk/device-id`, or `~/.local/state/c1nk/device-id`.
    public static func defaultPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") {
            return state + "/c1nk/device-id"
        }
        let home = environment["HOME"] ?? FileManager.default.homeDirectoryForCurrentUser.path
        return home + "/.local/state/c1nk/device-id"
    }

    /// Loads the id at `path`, creating it when the file does not exist.
    /// A corrupt file is replaced by a new id, with a warning saying so;
    /// an unreadable one is an error (replacing it would silently change
    /// who this device is).
    public static func loadOrCreate(at path: String, warn: (String) -> Void) throws -> DeviceIdentity {
        if access(path, F_OK) == 0 {
            let data: Data
            do {
                data = try Data(contentsOf: URL(fileURLWithPath: path))
            } catch {
                throw Failure.unreadable(path: path, reason: String(cString: strerror(errno)))
            }
            if let id = parse(data) {
                tightenPermissions(path, warn: warn)
                return DeviceIdentity(id: id, path: path)
            }
            let fresh = UUID().uuidString
            warn("the device id file \(path) is corrupt; created a new device id \(fresh) — the server will see this device as new")
            return try store(fresh, at: path)
        }
        return try store(UUID().uuidString, at: path)
    }

    /// Writes `id` to `path` (0600, directory 0700), replacing the file atomically.
    public static func store(_ id: String, at path: String) throws -> DeviceIdentity {
        // A bare file name ("device-id") lives in the current directory: nothing to create.
        let directory = path.deletingLastPathComponent
        do {
            if !directory.isEmpty {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                        attributes: [.posixPermissions: 0o700])
            }
        } catch {
            throw Failure.unwritable(path: path, reason: "cannot create \(directory)")
        }
        let body = JSONValue.text(of: [storageKey: id], sortedKeys: true)!
        let temporary = path + ".tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        guard fd >= 0 else { throw Failure.unwritable(path: path, reason: String(cString: strerror(errno))) }
        let written = body.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        fsync(fd)
        close(fd)
        guard written == body.count, rename(temporary, path) == 0 else {
            unlink(temporary)
            throw Failure.unwritable(path: path, reason: String(cString: strerror(errno)))
        }
        return DeviceIdentity(id: id, path: path)
    }

    private static func parse(_ data: Data) -> String? {
        guard let id = JSONValue(text: data)?.objectValue?[storageKey]?.stringValue, UUID(uuidString: id) != nil || isServerAssigned(id) else {
            return nil
        }
        return id
    }

    /// Servers may assign ids that are not UUIDs; accept any valid id (`ServerIdentifier`).
    private static func isServerAssigned(_ id: String) -> Bool { ServerIdentifier.isValid(id) }

    private static func tightenPermissions(_ path: String, warn: (String) -> Void) {
        var info = stat()
        guard stat(path, &info) == 0 else { return }
        if info.st_mode & 0o077 != 0 {
            warn("the device id file \(path) was readable by others; restricted it to its owner")
            chmod(path, 0o600)
        }
    }
}
