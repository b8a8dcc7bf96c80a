import C1nkGLib
import CGStreamer
import FoundationEssentials
import Glibc

/// Keys and touches from Linux input devices (`--input /dev/input/eventN|auto`)
/// for a bare kmssink display with no window system to send navigation
/// events. Reads raw `input_event` records in the GLib main loop (no thread
/// of its own), so it reads a recorded stream from a file or pipe as well.
public final class EvdevReader {
    public struct OpenError: Error, CustomStringConvertible {
        public let description: String
        public init(description: String) { self.description = description }
    }

    /// A key press (by the names `KeyCommand` knows) or a touch, in display pixels.
    public var onInput: ((NavigationInput) -> Void)?
    public let path: String

    private let fd: Int32
    private var watch: FileDescriptorWatch?
    private var pending: [UInt8] = []
    private var x = 0.0, y = 0.0
    private var touchStarted = false
    /// Device axis ranges, mapped onto the display; nil: already in pixels
    /// (a recorded stream has no device to ask).
    private var rangeX: (Int32, Int32)?
    private var rangeY: (Int32, Int32)?
    private let displayWidth: Double
    private let displayHeight: Double

    static let recordSize = MemoryLayout<input_event>.size

    /// Opens `path` (a device, a file or a pipe of `input_event` records).
    public init(path: String, displayWidth: Int, displayHeight: Int) throws {
        self.path = path
        self.displayWidth = Double(displayWidth)
        self.displayHeight = Double(displayHeight)
        fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else {
            let reason = String(cString: strerror(errno))
            var text = "--input: cannot open \(path): \(reason)."
            if errno == EACCES || errno == EPERM {
                text += " Input devices belong to the input group: add this user to it (sudo usermod -aG input $USER) and log in again."
            } else if errno == ENOENT {
                text += " List the devices with: ls -l /dev/input/by-path/ (or use --input auto)."
            }
            throw OpenError(description: text)
        }
        for (axis, store) in [(UInt32(ABS_MT_POSITION_X), 0), (UInt32(ABS_MT_POSITION_Y), 1), (UInt32(ABS_X), 0), (UInt32(ABS_Y), 1)] {
            var minimum: Int32 = 0, maximum: Int32 = 0
            guard c1nk_evdev_abs_range(fd, axis, &minimum, &maximum) == 0, maximum > minimum else { continue }
            if store == 0, rangeX == nil { rangeX = (minimum, maximum) }
            if store == 1, rangeY == nil { rangeY = (minimum, maximum) }
        }
        watch = FileDescriptorWatch(fd: fd, .readable) { [weak self] _ in self?.readAvailable() ?? false }
    }

    deinit {
        watch?.cancel()
        close(fd)
    }

    /// The devices `--input auto` reads: every /dev/input/event* that has
    /// keys or touch and can be opened.
    public static func automaticPaths() -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/dev/input")) ?? []
        return names.filter { $0.hasPrefix("event") }.sorted().compactMap { name in
            let capabilities = (try? String(contentsOfFile: "/sys/class/input/\(name)/device/capabilities/ev", encoding: .utf8)) ?? ""
            guard let bits = UInt64(capabilities.trimmingWhitespaceAndNewlines(), radix: 16),
                  bits & (1 << UInt64(EV_KEY)) != 0 else { return nil }
            let path = "/dev/input/\(name)"
            return access(path, R_OK) == 0 ? path : nil
        }
    }

    /// Returns false at the end of the stream.
    private func readAvailable() -> Bool {
        var buffer = [UInt8](repeating: 0, count: Self.recordSize * 64)
        let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if count < 0 && (errno == EAGAIN || errno == EINTR) { return true }
        if count <= 0 {
            if count < 0 { Log.app.warning("--input \(path): \(String(cString: strerror(errno))); no more input from it") }
            return false
        }
        pending.append(contentsOf: buffer[0..<count])
        let whole = pending.count / Self.recordSize
        for index in 0..<whole {
            let event = pending.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: index * Self.recordSize, as: input_event.self) }
            handle(type: Int32(event.type), code: Int32(event.code), value: event.value)
        }
        pending.removeFirst(whole * Self.recordSize)
        return true
    }

    private func handle(type: Int32, code: Int32, value: Int32) {
        switch type {
        case Int32(EV_KEY):
            if code == Int32(BTN_TOUCH) || code == Int32(BTN_LEFT) {
                if value == 1 { touchStarted = true }
                return
            }
            guard value == 1, let name = Self.keyName(code) else { return }
            onInput?(.key(name))
        case Int32(EV_ABS):
            switch code {
            case Int32(ABS_X), Int32(ABS_MT_POSITION_X): x = scale(value, rangeX, displayWidth)
            case Int32(ABS_Y), Int32(ABS_MT_POSITION_Y): y = scale(value, rangeY, displayHeight)
            default: break
            }
        case Int32(EV_SYN):
            if touchStarted {
                touchStarted = false
                onInput?(.press(x: x, y: y))
            }
        default:
            break
        }
    }

    private func scale(_ value: Int32, _ range: (Int32, Int32)?, _ size: Double) -> Double {
        guard let (low, high) = range else { return Double(value) }
        return Double(value - low) / Double(high - low) * size
    }

    /// Linux key codes of the display's keys.
    static func keyName(_ code: Int32) -> String? {
        switch code {
        case Int32(KEY_ENTER), Int32(KEY_KPENTER): return "Return"
        case Int32(KEY_ESC): return "Escape"
        case Int32(KEY_A): return "a"
        case Int32(KEY_R): return "r"
        case Int32(KEY_O): return "o"
        case Int32(KEY_H): return "h"
        case Int32(KEY_M): return "m"
        default: return nil
        }
    }
}
