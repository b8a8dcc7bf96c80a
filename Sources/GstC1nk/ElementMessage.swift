import CGstC1nk
import Foundation

/// An event of the events log as a GstStructure: strings, numbers and
/// booleans as themselves, anything nested as its JSON text.
enum ElementMessage {
    static func structure(named name: String, _ fields: [String: Any]) -> UnsafeMutableRawPointer {
        let structure = c1nk_plugin_structure_new(name)!
        for (key, value) in fields.sorted(by: { $0.key < $1.key }) {
            switch value {
            case let text as String: c1nk_plugin_structure_set_string(structure, key, text)
            case let flag as Bool: c1nk_plugin_structure_set_boolean(structure, key, flag ? 1 : 0)
            case let number as Int: c1nk_plugin_structure_set_int64(structure, key, Int64(number))
            case let number as Int64: c1nk_plugin_structure_set_int64(structure, key, number)
            case let number as Double: c1nk_plugin_structure_set_double(structure, key, number)
            default:
                if JSONSerialization.isValidJSONObject(value),
                   let data = try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys]) {
                    c1nk_plugin_structure_set_string(structure, key, String(decoding: data, as: UTF8.self))
                } else {
                    c1nk_plugin_structure_set_string(structure, key, "\(value)")
                }
            }
        }
        return structure
    }
}
