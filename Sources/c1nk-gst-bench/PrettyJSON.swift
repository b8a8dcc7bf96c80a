import Foundation

/// A section's figures as `--json` prints them: pretty, keys sorted.
protocol PrettyJSON: Encodable {}

extension PrettyJSON {
    var json: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return String(decoding: try! encoder.encode(self), as: UTF8.self)
    }
}
