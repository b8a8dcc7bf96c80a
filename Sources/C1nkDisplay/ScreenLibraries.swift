import CScreenLibraries

/// cairo, Pango and gdk-pixbuf, which the screens draw with, opened the first
/// time screens start (Sources/CScreenLibraries says why they are not linked).
public enum ScreenLibraries {
    public struct Missing: Error, CustomStringConvertible {
        public let description: String
    }

    /// Opens them, or says which is missing and what to install.
    public static func load() throws {
        var error: UnsafePointer<CChar>?
        guard c1nk_screen_libraries_load(&error) != 0 else {
            throw Missing(description: error.map { String(cString: $0) } ?? "the screens' drawing libraries could not be opened")
        }
    }
}
