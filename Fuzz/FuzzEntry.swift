// The libFuzzer entry point (built by scripts/fuzz with -sanitize=fuzzer,
// outside SwiftPM: libFuzzer brings its own main). The work is in
// C1nkAnswerer.FuzzInput, which the unit tests call too.
import C1nkAnswerer
import CGStreamer

/// GLib criticals are failed preconditions of a C API (usually a NULL or an
/// empty argument): crashes for the fuzzer, as with G_DEBUG=fatal-criticals.
@_cdecl("LLVMFuzzerInitialize")
public func fuzzInitialize(_ argc: UnsafeMutablePointer<CInt>?, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>?) -> CInt {
    g_log_set_always_fatal(GLogLevelFlags(rawValue: G_LOG_LEVEL_CRITICAL.rawValue | G_LOG_LEVEL_ERROR.rawValue))
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    FuzzInput.run(UnsafeRawBufferPointer(start: data, count: size))
    return 0
}
