import Glibc

/// A free even UDP port and the odd one above it on `address` (RTP and RTCP,
/// as RFC 3550 pairs them), found by binding and releasing both. Another
/// process could take them between this and the pipeline's bind; that fails
/// the pipeline with an error naming the port, never silently.
public enum RTPPortPair {
    public static func find(on address: String, tries: Int = 64) -> Int? {
        for _ in 0..<tries {
            guard let any = bind(address, 0) else { continue }
            let even = any % 2 == 0 ? any : any + 1
            if even < 65535, bind(address, even) != nil, bind(address, even + 1) != nil { return even }
        }
        return nil
    }

    /// Binds a UDP socket to `address`:`port`, closes it, and returns the port it had.
    private static func bind(_ address: String, _ port: Int) -> Int? {
        var storage = sockaddr_in()
        storage.sin_family = sa_family_t(AF_INET)
        storage.sin_port = in_port_t(UInt16(port).bigEndian)
        guard inet_pton(AF_INET, address, &storage.sin_addr) == 1 else { return nil }
        let fd = socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        let bound = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else { return nil }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return named == 0 ? Int(UInt16(bigEndian: storage.sin_port)) : nil
    }
}
