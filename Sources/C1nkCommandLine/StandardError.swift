import Foundation

/// Writes `text` to standard error as it is (the commands' messages to the
/// person running them). Safe from any thread, unlike C's `stderr` global.
public func writeToStandardError(_ text: String) {
    FileHandle.standardError.write(Data(text.utf8))
}
