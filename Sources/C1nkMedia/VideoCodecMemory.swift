import C1nkGLib
import FoundationEssentials
import Glibc
import Synchronization

/// The door's video codec of the last call, in a small file beside the
/// device id (`last-video-codec`), so that a new process warms that
/// codec's decoder at start-up instead of in its first call.
///
/// H.264's decoders are left out of the start-up warm-up (libav maps ~100
/// libraries, 30 MB resident: `ElementWarmUp`), so a process's first H.264
/// call loaded them between its connection and its first frame (ring →
/// first frame 122 ms against VP8's 66 here). A door rarely changes its
/// codec: warming what it used last gets that call the VP8 figure, and a
/// VP8 home still never maps libav. The file is read and written on a
/// thread of its own, never on the main context; what it holds is data:
/// at most a few bytes, one of the codec names below, anything else is
/// ignored with a log line.
public struct VideoCodecMemory: Equatable, Sendable {
    public static let fileName = "last-video-codec"
    /// The codecs a file may name, and what each warms at start-up.
    static let stages: [String: [ElementWarmUp.Stage]] = ["VP8": [], "VP9": [], "H264": [.h264]]
    static let maximumBytes = 16
    public let path: String

    public init(path: String) { self.path = path }

    /// The file in the device id file's folder.
    public init(besideDeviceIdFile deviceIdFile: String) {
        path = deviceIdFile.deletingLastPathComponent.appendingPathComponent(Self.fileName)
    }

    /// What this process last read or wrote, so that a call of the same codec writes nothing.
    private static let known = Mutex<[String: String]>([:])

    /// Reads the file and warms its codec's decoder, on a thread of its own;
    /// `done` (tests) runs there after, with the codec read.
    public func warmRememberedDecoder(done: (@Sendable (String?) -> Void)? = nil) {
        let path = self.path
        detachThread {
            let codec = Self.read(path)
            if let codec {
                Self.known.withLock { $0[path] = codec }
                let stages = Self.stages[codec] ?? []
                for stage in stages { ElementWarmUp.warm(stage) }
                Log.callMedia.info("the door's last video codec was \(codec) (\(path)): "
                                   + (stages.isEmpty ? "its decoder is warm already" : "its decoder is warmed"))
            }
            done?(codec)
        }
    }

    /// Keeps `codec` (the call's answered video codec) for the next process; writes only a change.
    public func remember(_ codec: String) {
        guard Self.stages[codec] != nil else { return }
        let path = self.path
        let changed = Self.known.withLock { known -> Bool in
            defer { known[path] = codec }
            return known[path] != codec
        }
        guard changed else { return }
        detachThread { Self.write(codec, to: path) }
    }

    /// The codec named in the file; nil (logged) for a missing, oversized or unknown one.
    static func read(_ path: String) -> String? {
        guard let data = readFile(atPath: path, limit: maximumBytes + 1) else { return nil }
        let text = String(decoding: data, as: UTF8.self).trimmingWhitespaceAndNewlines()
        guard data.count <= maximumBytes, stages[text] != nil else {
            Log.callMedia.warning("\(path) does not name a video codec (\(stages.keys.sorted().joined(separator: ", "))): "
                                  + "ignored; the next call writes it anew")
            return nil
        }
        return text
    }

    /// Written beside, then renamed over: a reader sees the old name or the new one. Owner-only, as the device id.
    static func write(_ codec: String, to path: String) {
        let temporary = path + ".new"
        guard FileManager.default.createFile(atPath: temporary, contents: Data((codec + "\n").utf8),
                                             attributes: [.posixPermissions: 0o600]),
              rename(temporary, path) == 0 else {
            unlink(temporary)
            Log.callMedia.warning("cannot write \(path) (\(String(cString: strerror(errno)))): "
                                  + "the next process warms no decoder for the door's video; check that folder's permissions")
            return
        }
    }
}
