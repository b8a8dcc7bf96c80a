import C1nkGLib

extension PipelineDescription {
    /// The element factories this description builds, with `values` for its
    /// placeholders (stand-ins for the per-call ones), for `doctor`. Throws
    /// what building throws (a missing element named with its package).
    public func elementFactories(_ values: [String: String]) throws -> [String] {
        var all = values
        for (key, value) in Self.standInValues where all[key] == nil { all[key] = value }
        if all["record-location"] == nil { all["record-location"] = "/dev/null" }
        let pipeline = try makePipeline(all)
        return Set(pipeline.elements.compactMap(\.factoryName)).sorted()
    }

    /// The Debian package that brings an element, when known.
    public static func package(forElement name: String) -> String? {
        PluginPackages.package(forElement: name)
    }
}
