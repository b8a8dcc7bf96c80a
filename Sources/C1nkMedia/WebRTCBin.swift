import C1nkGLib
import C1nkPipeline
import CGStreamer

/// A `webrtcbin` element with Swift operations: descriptions, candidates,
/// connection state. Shared by the answerer and the simulated door.
///
/// Threading: webrtcbin answers promises and emits its signals on its own
/// threads. Every callback here is re-posted to the main context before it
/// reaches Swift state, except `onSourcePad`, which must link the new pad at
/// once on the streaming thread (data is already flowing) and so may only
/// touch what was prepared before negotiation.
package final class WebRTCBin {
    let element: UnsafeMutablePointer<GstElement>
    private var signals: [SignalConnection] = []
    private let log = Log.media

    /// A local ICE candidate (m-line index, `candidate:…` line), on the main context.
    var onLocalCandidate: ((UInt32, String) -> Void)?
    /// The aggregate peer-connection state changed, on the main context.
    var onConnectionState: ((GstWebRTCPeerConnectionState) -> Void)?
    /// webrtcbin wants an offer (offerer side), on the main context.
    var onNegotiationNeeded: (() -> Void)?
    /// ICE gathering went on or finished, on the main context.
    var onGatheringState: ((GstWebRTCICEGatheringState) -> Void)?

    /// Creates the element with the ICE settings and jitterbuffer latency.
    /// `onSourcePad` runs on a streaming thread for each receiving pad.
    /// `onNewStream` runs on a streaming thread when the first packet of a
    /// remote SSRC reaches its new jitterbuffer (before the jitterbuffer
    /// holds it for the latency; `onSourcePad` comes after that).
    init(name: String, ice: IceConfiguration, latencyMilliseconds: UInt,
         onNewStream: ((_ jitterbuffer: UnsafeMutablePointer<GstElement>, _ ssrc: UInt32) -> Void)? = nil,
         onSourcePad: @escaping (UnsafeMutablePointer<GstPad>) -> Void) throws {
        guard let element = gst_element_factory_make("webrtcbin", name) else {
            throw MediaError.missingElement("webrtcbin", package: "gstreamer1.0-plugins-bad")
        }
        self.element = element
        gst_object_ref_sink(UnsafeMutableRawPointer(element))
        let raw = UnsafeMutableRawPointer(element)
        ObjectProperty.set(raw, "bundle-policy", "max-bundle")
        ObjectProperty.set(raw, "latency", String(latencyMilliseconds))
        if let stun = ice.stunServers.first {
            // webrtcbin 1.22 and libnice take one STUN server (a TURN server
            // gives server-reflexive candidates too).
            ObjectProperty.set(raw, "stun-server", IceConfiguration.webrtcbinURL(stun))
            if ice.stunServers.count > 1 {
                log.debug("webrtcbin takes one STUN server; using \(stun)")
            }
        }
        ObjectProperty.set(raw, "ice-transport-policy", ice.transportPolicy.rawValue)
        for turn in ice.turnServers {
            if c1nk_emit_string_returns_bool(raw, "add-turn-server", IceConfiguration.webrtcbinURL(turn)) == 0 {
                throw MediaError.badConfiguration("webrtcbin refused the TURN server \(turn); expected turn://user:pass@host:port")
            }
        }
        let addresses = ice.effectiveLocalAddresses()
        if let agent = c1nk_object_get_object(raw, "ice-agent") {
            for address in addresses where c1nk_emit_string_returns_bool(agent, "add-local-ip-address", address) == 0 {
                log.warning("cannot gather ICE candidates on \(address)")
            }
            // libnice paces its connectivity checks 20 ms apart (RFC 5245's
            // Ta); with the few candidate pairs of a door call, 5 ms reaches
            // the working pair sooner (RFC 8445 allows Ta down to 5 ms).
            if ObjectProperty.has(agent, "agent"), let nice = c1nk_object_get_object(agent, "agent") {
                if ObjectProperty.has(nice, "stun-pacing-timer") { ObjectProperty.set(nice, "stun-pacing-timer", "5") }
                // No UPnP port mapping (libwebrtc does none either): its IGD
                // discovery runs a thread with SSDP sockets per agent that a
                // call ending mid-discovery could leave behind, and it sends
                // multicast at every ring.
                if ObjectProperty.has(nice, "upnp") { ObjectProperty.set(nice, "upnp", "false") }
                g_object_unref(nice)
            }
            // Plain unref: the agent is still floating inside webrtcbin 1.22, and
            // sinking it would steal webrtcbin's own reference.
            gst_object_unref(agent)
        }

        signals.append(SignalConnection.connect(raw, "on-ice-candidate") { [weak self] (mline: UInt32, candidate: String) in
            MainContext.post { self?.onLocalCandidate?(mline, candidate) }
        })
        signals.append(SignalConnection.connect(raw, "notify::connection-state") { [weak self] (_: gpointer?) in
            let state = GstWebRTCPeerConnectionState(rawValue: UInt32(c1nk_object_get_int(raw, "connection-state")))
            MainContext.post { self?.onConnectionState?(state) }
        })
        signals.append(SignalConnection.connect(raw, "notify::ice-gathering-state") { [weak self] (_: gpointer?) in
            let state = GstWebRTCICEGatheringState(rawValue: UInt32(c1nk_object_get_int(raw, "ice-gathering-state")))
            MainContext.post { self?.onGatheringState?(state) }
        })
        signals.append(SignalConnection.connect(raw, "on-negotiation-needed") { [weak self] in
            MainContext.post { self?.onNegotiationNeeded?() }
        })
        // webrtcbin 1.22 puts a clocksync before each transport, holding every
        // outgoing packet until the pipeline clock reaches its time plus the
        // pipeline latency (10–20 ms here). Live sources are paced already,
        // so send packets as soon as they are made.
        signals.append(SignalConnection.connect(raw, "deep-element-added") { (_: gpointer?, element: gpointer?) in
            guard let element = element?.assumingMemoryBound(to: GstElement.self),
                  let factory = gst_element_get_factory(element),
                  Gst.name(UnsafeMutableRawPointer(factory).assumingMemoryBound(to: GstObject.self)) == "clocksync" else { return }
            ObjectProperty.set(UnsafeMutableRawPointer(element), "sync", "false")
        })
        if let onNewStream, let rtpbin = Gst.elements(of: element).first(where: { Gst.factoryName($0) == "rtpbin" }) {
            signals.append(SignalConnection.connect(UnsafeMutableRawPointer(rtpbin), "new-jitterbuffer") { (jitterbuffer: gpointer?, _: UInt32, ssrc: UInt32) in
                guard let jitterbuffer = jitterbuffer?.assumingMemoryBound(to: GstElement.self) else { return }
                onNewStream(jitterbuffer, ssrc)
            })
        }
        signals.append(SignalConnection.connect(raw, "pad-added") { (pad: gpointer?) in
            guard let pad = pad?.assumingMemoryBound(to: GstPad.self), gst_pad_get_direction(pad) == GST_PAD_SRC else { return }
            onSourcePad(pad)
        })
    }

    /// Applies the remote description; `completion(nil)` on success, or the error.
    func setRemoteDescription(_ type: GstWebRTCSDPType, sdp: String, completion: @escaping (String?) -> Void) {
        var message: UnsafeMutablePointer<GstSDPMessage>?
        guard gst_sdp_message_new_from_text(sdp, &message) == GST_SDP_OK, let message else {
            completion("the SDP does not parse")
            return
        }
        let description = gst_webrtc_session_description_new(type, message)
        let promise = Promise.make { replied, reply in
            let error = Promise.errorMessage(replied: replied, reply)
            MainContext.post { completion(error) }
        }
        c1nk_emit_pointer_pointer(UnsafeMutableRawPointer(element), "set-remote-description",
                                  UnsafeMutableRawPointer(description), UnsafeMutableRawPointer(promise))
        gst_webrtc_session_description_free(description)
        gst_promise_unref(promise)
    }

    /// Creates an answer (or offer) and applies it as the local description;
    /// the SDP text or an error, on the main context.
    /// `inactiveLines`: m-lines the answer declines (`a=inactive`; webrtcbin
    /// 1.22 answers port 0 only for a whole bundle, and a bundle whose first
    /// m-line is rejected does not connect).
    func createLocalDescription(_ type: GstWebRTCSDPType, inactiveLines: Set<Int> = [],
                                completion: @escaping (Result<String, MediaError>) -> Void) {
        let field = type == GST_WEBRTC_SDP_TYPE_ANSWER ? "answer" : "offer"
        let signal = type == GST_WEBRTC_SDP_TYPE_ANSWER ? "create-answer" : "create-offer"
        let raw = UnsafeMutableRawPointer(element)
        let promise = Promise.make { replied, reply in
            if let error = Promise.errorMessage(replied: replied, reply) {
                MainContext.post { completion(.failure(.negotiation("\(signal) failed: \(error)"))) }
                return
            }
            guard let reply, let value = gst_structure_get_value(reply, field),
                  let boxed = g_value_get_boxed(value) else {
                MainContext.post { completion(.failure(.negotiation("\(signal) gave no \(field)"))) }
                return
            }
            let description = boxed.assumingMemoryBound(to: GstWebRTCSessionDescription.self)
            for index in inactiveLines { Self.setInactive(description.pointee.sdp, line: index) }
            let text = gst_sdp_message_as_text(description.pointee.sdp).map { pointer -> String in
                defer { g_free(pointer) }
                return String(cString: pointer)
            } ?? ""
            // Set on the main context, where a session that stopped in the
            // meantime says so: set on a closing webrtcbin, the description
            // would start ICE gathering (sockets, the agent's thread) that
            // nobody ends.
            let copy = gst_webrtc_session_description_copy(description)
            MainContext.post { [weak self] in
                defer { gst_webrtc_session_description_free(copy) }
                guard let self, !self.isClosed else {
                    return completion(.failure(.negotiation("the session stopped before its \(field) was set")))
                }
                c1nk_emit_pointer_pointer(raw, "set-local-description", UnsafeMutableRawPointer(copy), nil)
                completion(.success(text))
            }
        }
        c1nk_emit_pointer_pointer(raw, signal, nil, UnsafeMutableRawPointer(promise))
        gst_promise_unref(promise)
    }

    /// The transceivers, in m-line order once negotiated; valid while `body` runs.
    func withTransceivers<T>(_ body: ([UnsafeMutableRawPointer]) -> T) -> T {
        guard let array = c1nk_emit_get_transceivers(UnsafeMutableRawPointer(element)) else { return body([]) }
        defer { g_array_unref(array) }
        let items = array.pointee.data.withMemoryRebound(to: UnsafeMutableRawPointer?.self, capacity: Int(array.pointee.len)) { pointer in
            (0..<Int(array.pointee.len)).compactMap { pointer[$0] }
        }
        return body(items)
    }

    /// The transceiver of m-line `index` (after a description set it), valid while `body` runs.
    func withTransceiver<T>(mline index: Int, _ body: (UnsafeMutableRawPointer?) -> T) -> T {
        withTransceivers { all in
            body(all.first { Int(c1nk_object_get_int($0, "mlineindex")) == index })
        }
    }

    /// Replaces the direction of m-line `line` with `inactive`.
    private static func setInactive(_ sdp: UnsafeMutablePointer<GstSDPMessage>?, line: Int) {
        guard let sdp, line < gst_sdp_message_medias_len(sdp),
              let media = gst_sdp_message_get_media(sdp, guint(line)).map({ UnsafeMutablePointer(mutating: $0) }) else { return }
        var index: guint = 0
        while index < gst_sdp_media_attributes_len(media) {
            if let key = gst_sdp_media_get_attribute(media, index)?.pointee.key.map({ String(cString: $0) }),
               ["sendrecv", "sendonly", "recvonly", "inactive"].contains(key) {
                gst_sdp_media_remove_attribute(media, index)
            } else {
                index += 1
            }
        }
        gst_sdp_media_add_attribute(media, "inactive", "")
    }

    func addRemoteCandidate(mlineIndex: UInt32, candidate: String) {
        guard !candidate.isEmpty else { return } // end-of-candidates: nothing to add in 1.22
        c1nk_emit_uint_string(UnsafeMutableRawPointer(element), "add-ice-candidate", mlineIndex, candidate)
    }

    /// Whether `disconnect` ran: no description is set after it (main context).
    private(set) var isClosed = false

    /// Stops listening; call before the pipeline goes to NULL.
    func disconnect() {
        isClosed = true
        signals.forEach { $0.disconnect() }
        signals.removeAll()
        onLocalCandidate = nil
        onConnectionState = nil
        onNegotiationNeeded = nil
        onGatheringState = nil
    }

    deinit {
        disconnect()
        gst_object_unref(UnsafeMutableRawPointer(element))
    }

    /// Generates the DTLS certificate now, so the first ring does not pay for
    /// it (170–530 ms on a small CPU): dtlsdec caches it for the process.
    /// `stages`: what is warmed now besides; the answerer leaves H.264's
    /// decoder to its first H.264 offer (`ElementWarmUp`), so that an idle
    /// process does not map libav.
    package static func warmUp(_ stages: [ElementWarmUp.Stage] = [.startUp]) {
        GStreamer.initialize()
        for stage in stages { ElementWarmUp.warm(stage) }
        // The registry walk of the first answer, done now (cached per process;
        // it reads the registry, it loads no plug-in).
        for (name, media) in [("VP8", "video"), ("H264", "video"), ("VP9", "video"), ("OPUS", "audio"), ("PCMU", "audio"), ("PCMA", "audio")] {
            _ = CodecSupport.playable(name, media: media)
        }
    }
}
