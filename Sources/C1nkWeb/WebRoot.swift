import C1nkGLibBase
import FoundationEssentials

/// Where the page's files are (`share/c1nk-gst/web` when installed):
/// `--web-root` or `$C1NK_WEB_DIR` alone when set; otherwise
/// `../share/c1nk-gst/web` beside the executable's folder, then the source
/// tree's `Web/` folder this was built from.
public enum WebRoot {
    public static func candidates(environment: [String: String] = ProcessInfo.processInfo.environment) -> [String] {
        if let override = environment["C1NK_WEB_DIR"], !override.isEmpty { return [override] }
        var result: [String] = []
        if let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            let folder = executable.deletingLastPathComponent
            result.append(folder.deletingLastPathComponent + "/share/c1nk-gst/web")
        }
        let sources = #filePath.deletingLastPathComponent.deletingLastPathComponent
        result.append(sources.deletingLastPathComponent + "/Web")
        return result
    }

    public static func find(environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        candidates(environment: environment).first { FileManager.default.fileExists(atPath: $0 + "/index.html") }
    }
}
