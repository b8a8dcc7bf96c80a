import CMosquitto
import Glibc

/// What a failure of libmosquitto or of the socket means, in the words the status line and the events log show.
extension MQTTClient {
    /// The error pending on a socket (`SO_ERROR`), or nil.
    static func socketError(_ fd: Int32) -> Int32? {
        var value: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_ERROR, &value, &length) == 0, value != 0 else { return nil }
        return value
    }

    /// An IPv4 or IPv6 address, not a name.
    static func isAddress(_ host: String) -> Bool {
        var buffer = in6_addr()
        return inet_pton(AF_INET, host, &buffer) == 1 || inet_pton(AF_INET6, host, &buffer) == 1
    }

    static func describe(_ rc: Int32) -> String {
        if rc == MOSQ_ERR_ERRNO.rawValue { return String(cString: strerror(errno)) }
        if rc == MOSQ_ERR_TLS.rawValue {
            return "the TLS handshake failed (a broker certificate no trusted authority signed, or not for this host); pass --mqtt-trust-ca FILE with the broker's CA"
        }
        if rc == MOSQ_ERR_CONN_LOST.rawValue || rc == MOSQ_ERR_NO_CONN.rawValue { return "the broker closed the connection" }
        return String(cString: mosquitto_strerror(rc))
    }
}
