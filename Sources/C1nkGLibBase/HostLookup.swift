import CGLib

/// A host name looked up without blocking the main context: GIO's resolver
/// asks the system's on a worker thread of its own and answers on the
/// main context. An address literal answers at once, with no lookup.
/// Main context only; releasing it (or `cancel()`) drops the answer.
package final class HostLookup {
    private var cancellable: UnsafeMutablePointer<GCancellable>?

    /// Starts looking `host` up; `completion` gets its addresses as text (IPv4 and IPv6, in the
    /// system's order of preference), or the resolver's error, on the main context.
    package init(_ host: String, completion: @escaping (Result<[String], GLibError>) -> Void) {
        let resolver = g_resolver_get_default()
        let cancellable = g_cancellable_new()
        self.cancellable = cancellable
        let (callback, data) = AsyncCallback.ready { [weak self] source, result in
            var error: UnsafeMutablePointer<GError>? = nil
            let list = g_resolver_lookup_by_name_finish(source?.assumingMemoryBound(to: GResolver.self), result, &error)
            let cancelled = g_cancellable_is_cancelled(cancellable) != 0
            g_object_unref(gpointer(cancellable))
            if let self, self.cancellable == cancellable { self.cancellable = nil }
            var addresses: [String] = []
            var node = list
            while let current = node {
                if let text = g_inet_address_to_string(current.pointee.data?.assumingMemoryBound(to: GInetAddress.self)) {
                    addresses.append(String(cString: text))
                    g_free(text)
                }
                node = current.pointee.next
            }
            if let list { g_resolver_free_addresses(list) }
            guard !cancelled else { if let error { g_error_free(error) }; return }
            if error != nil { completion(.failure(GLibError.take(error))); return }
            guard !addresses.isEmpty else {
                completion(.failure(GLibError(domain: "c1nk", code: 0, message: "the name has no address")))
                return
            }
            completion(.success(addresses))
        }
        g_resolver_lookup_by_name_async(resolver, host, cancellable, callback, data)
        g_object_unref(gpointer(resolver))
    }

    /// Drops the answer: `completion` will not run.
    package func cancel() {
        if let cancellable { g_cancellable_cancel(cancellable); self.cancellable = nil }
    }

    deinit { cancel() }
}
