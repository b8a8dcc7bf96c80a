import C1nkGLib

/// Paths never enter a description's text: a file's name may hold quotes,
/// spaces or `!` (it may come from the server's callId), and the parser
/// would read them as syntax. The text gets a stand-in instead, and the
/// element whose `location` is that stand-in is given the path as a property.
extension PipelineDescription {
    /// The placeholders whose values are paths.
    public static let pathPlaceholders = ["record-location"]

    /// What the text holds in place of `{name}`'s path: a plain word the parser takes as it is.
    static func standIn(forPath name: String) -> String { "c1nk-path-of-\(name)" }

    /// The lines the parser is given for `values`, each path replaced by its
    /// stand-in, and the paths by stand-in.
    package func parserLines(_ values: [String: String]) -> (lines: [String], paths: [String: String]) {
        var text = values
        var paths: [String: String] = [:]
        for name in Self.pathPlaceholders {
            guard let path = values[name] else { continue }
            text[name] = Self.standIn(forPath: name)
            paths[Self.standIn(forPath: name)] = path
        }
        return (lines.map { Placeholders.fill($0, text) }, paths)
    }

    /// Sets each element's `location` that holds a stand-in to its path;
    /// a stand-in that is not a whole `location` value is an error that says so.
    func setPaths(_ paths: [String: String], in pipeline: Pipeline) throws {
        var unset = Set(paths.keys.filter { standIn in lines.contains { Placeholders.fill($0, Self.standInsByName).contains(standIn) } })
        for element in pipeline.elements where element.has(property: "location") {
            guard let current = element[string: "location"], let path = paths[current] else { continue }
            element[string: "location"] = path
            unset.remove(current)
        }
        if let standIn = unset.first, let name = Self.pathPlaceholders.first(where: { Self.standIn(forPath: $0) == standIn }) {
            throw PipelineError(file: path, line: lines.firstIndex { $0.contains("{\(name)}") }.map { $0 + 1 }, element: "{\(name)}",
                                message: "{\(name)} is a path: give it as a whole location value (filesink location={\(name)})")
        }
    }

    private static var standInsByName: [String: String] {
        Dictionary(uniqueKeysWithValues: pathPlaceholders.map { ($0, standIn(forPath: $0)) })
    }
}
