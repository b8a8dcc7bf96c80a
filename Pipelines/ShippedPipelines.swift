import C1nkGLibBase
import FoundationEssentials

/// Where the pipeline descriptions shipped with c1nk-gst are found:
/// `$C1NK_PIPELINES_DIR` alone when set; otherwise, in order,
/// `../share/c1nk-gst/pipelines` beside the executable's folder (an installed
/// layout); when this code is loaded as the GStreamer plugin `libgstc1nk.so`,
/// PREFIX/share/c1nk-gst/pipelines from PREFIX/lib/<multiarch>/gstreamer-1.0;
/// the source tree this was built from (`swift run`, `swift build`, the tests).
public enum ShippedPipelines {
    public static var directory: String? {
        candidates().first { FileManager.default.fileExists(atPath: $0 + "/display.pipeline") }
    }

    public static func candidates() -> [String] {
        var result: [String] = []
        // A folder set on purpose is the only one looked in: a wrong one is said, not papered over.
        if let override = ProcessInfo.processInfo.environment["C1NK_PIPELINES_DIR"], !override.isEmpty { return [override] }
        if let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            result.append(executable.deletingLastPathComponent.deletingLastPathComponent + "/share/c1nk-gst/pipelines")
        }
        if let library = loadedLibrary() {
            result.append(library.deletingLastPathComponent + "/../../../share/c1nk-gst/pipelines")
        }
        result.append(#filePath.deletingLastPathComponent)
        return result
    }

    /// The shared library this code was loaded from (the plugin), by the
    /// mapping of /proc/self/maps that holds it; nil in an executable.
    private static func loadedLibrary() -> String? {
        let address = UInt(bitPattern: #dsohandle)
        // Read to the end: /proc files report a size of 0.
        guard let bytes = readFile(atPath: "/proc/self/maps") else { return nil }
        let maps = String(decoding: bytes, as: UTF8.self)
        for line in maps.split(separator: "\n") {
            let columns = line.split(separator: " ", omittingEmptySubsequences: true)
            guard columns.count >= 6, let path = columns.last, path.hasSuffix(".so") else { continue }
            let range = columns[0].split(separator: "-")
            guard range.count == 2, let start = UInt(range[0], radix: 16), let end = UInt(range[1], radix: 16),
                  (start..<end).contains(address) else { continue }
            return String(path)
        }
        return nil
    }
}
