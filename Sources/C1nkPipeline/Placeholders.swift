/// The `{name}` placeholders of a pipeline description: found in a line,
/// and filled with values (a value that is missing leaves its placeholder).
public enum Placeholders {
    /// `description` with each `{key}` of `values` replaced by its value, in
    /// one pass over the description: what a value holds is never read as a
    /// placeholder in its turn, whatever the order of the keys.
    public static func fill(_ description: String, _ values: [String: String]) -> String {
        var result = ""
        var rest = Substring(description)
        while let open = rest.firstIndex(of: "{") {
            result += rest[..<open]
            if let close = rest[open...].firstIndex(of: "}"), let value = values[String(rest[rest.index(after: open)..<close])] {
                result += value
                rest = rest[rest.index(after: close)...]
            } else {
                result.append("{")
                rest = rest[rest.index(after: open)...]
            }
        }
        return result + rest
    }

    /// The names of the placeholders in `line`, in order (`{audio-sink}` → `audio-sink`);
    /// braces around anything but letters, digits and dashes are not placeholders.
    public static func names(in line: String) -> [String] {
        var result: [String] = []
        var rest = Substring(line)
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            let name = rest[rest.index(after: open)..<close]
            if !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" }) { result.append(String(name)) }
            rest = rest[rest.index(after: close)...]
        }
        return result
    }
}
