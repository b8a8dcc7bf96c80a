import CGLib

/// A `GError` turned into a Swift error, keeping domain, code and message.
public struct GLibError: Error, CustomStringConvertible {
    public let domain: String
    public let code: Int32
    public let message: String

    public var description: String { message }

    /// Takes ownership of `error` (frees it) and returns its Swift form.
    package static func take(_ error: UnsafeMutablePointer<GError>?) -> GLibError {
        guard let error else { return GLibError(domain: "c1nk", code: 0, message: "unknown error") }
        defer { g_error_free(error) }
        let domain = g_quark_to_string(error.pointee.domain).map { String(cString: $0) } ?? "?"
        let message = error.pointee.message.map { String(cString: $0) } ?? "?"
        return GLibError(domain: domain, code: error.pointee.code, message: message)
    }

    /// Calls `body` with a `GError**`; throws when it fills one in.
    @discardableResult
    static func check<T>(_ body: (UnsafeMutablePointer<UnsafeMutablePointer<GError>?>) -> T) throws -> T {
        var error: UnsafeMutablePointer<GError>? = nil
        let result = body(&error)
        if error != nil { throw take(error) }
        return result
    }
}
