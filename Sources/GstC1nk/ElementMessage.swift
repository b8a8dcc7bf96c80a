import Foundation

/// An event of the events log as a GstStructure: strings, numbers and
/// booleans as themselves, anything nested as its JSON text.
enum ElementMessage {
    static func structure(named name: String, _ fields: [String: Any]) -> MessageStructure {
        let structure = MessageStructure(named: name)
        for (key, value) in fields.sorted(by: { $0.key < $1.key }) {
            switch value {
            case let text as String: structure.set(key, text)
            case let flag as Bool: structure.set(key, flag)
            case let number as Int: structure.set(key, Int64(number))
            case let number as Int64: structure.set(key, number)
            case let number as Double: structure.set(key, number)
            default:
                if JSONSerialization.isValidJSONObject(value),
                   let data = try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys]) {
                    structure.set(key, String(decoding: data, as: UTF8.self))
                } else {
                    structure.set(key, "\(value)")
                }
            }
        }
        return structure
    }
}
