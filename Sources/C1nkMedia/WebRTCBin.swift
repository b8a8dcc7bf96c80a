import C1nkGLib
import C1nkPipeline
import CGStreamer

/// A `webrtcbin` element with Swift operations: descriptions, candidates,
/// connection state. Shared by the answerer and the simulated door.
///
/// Threading: webrtcbin answers promises and emits its signals on its own
/// threads. Every callback here is re-posted to the main context before it
/// reaches Swift state, except `onReceivingPad` and `onNewStream`, which run
/// on the streaming thread (data is already flowing: the new pad must be
/// linked at once) and so may only touch what was prepared before negotiation.
package final class WebRTCBin {
    /// The element (a bin: rtpbin and the transports are inside it); its
    /// owner adds it to the call's pipeline.
    package let webrtcbin: Bin
    private var signals: [SignalConnection] = []
    private let log = Log.callMedia

    /// A local ICE candidate (m-line index, `candidate:…` line), on the main context.
    package var onLocalCandidate: ((UInt32, String) -> Void)?
    /// The aggregate peer-connection state changed, on the main context.
    package var onConnectionState: ((GstWebRTCPeerConnectionState) -> Void)?
    /// webrtcbin wants an offer (offerer side), on the main context.
    package var onNegotiationNeeded: (() -> Void)?
    /// ICE gathering went on or finished, on the main context.
    package var onGatheringState: ((GstWebRTCICEGatheringState) -> Void)?

    /// Creates the element with the ICE settings and jitterbuffer latency.
    /// `onReceivingPad` runs on a streaming thread for each receiving pad.
    /// `onNewStream` runs on a streaming thread when the first packet of a
    /// remote SSRC reaches its new jitterbuffer (before the jitterbuffer
    /// holds it for the latency; `onReceivingPad` comes after that).
    package init(name: String, ice: IceConfiguration, latencyMilliseconds: UInt,
         onNewStream: ((_ jitterbuffer: Element, _ ssrc: UInt32) -> Void)?,
         onReceivingPad: @escaping (Pad) -> Void) throws {
        guard let webrtcbin = Bin.make("webrtcbin", name: name) else {
            throw MediaError.missingElement("webrtcbin", package: "gstreamer1.0-plugins-bad")
        }
        self.webrtcbin = webrtcbin
        webrtcbin.set("bundle-policy", fromString: "max-bundle")
        webrtcbin.set("latency", fromString: String(latencyMilliseconds))
        if let stun = ice.stunServers.first {
            // webrtcbin 1.22 and libnice take one STUN server (a TURN server
            // gives server-reflexive candidates too).
            webrtcbin.set("stun-server", fromString: IceConfiguration.webrtcbinURL(stun))
            if ice.stunServers.count > 1 {
                log.debug("webrtcbin takes one STUN server; using \(stun)")
            }
        }
        webrtcbin.set("ice-transport-policy", fromString: ice.transportPolicy.rawValue)
        for turn in ice.turnServers {
            if c1nk_emit_string_returns_bool(webrtcbin.object, "add-turn-server", IceConfiguration.webrtcbinURL(turn)) == 0 {
                throw MediaError.badConfiguration("webrtcbin refused the TURN server \(turn); expected turn://user:pass@host:port")
            }
        }
        tuneIceAgent(gatheringOn: ice.effectiveLocalAddresses())
        watchSignals(onNewStream: onNewStream, onReceivingPad: onReceivingPad)
    }

    /// Local addresses and libnice's pacing. The agent is read with a
    /// reference of our own and never sunk: it is still floating inside
    /// webrtcbin 1.22, and sinking it would steal webrtcbin's own reference.
    private func tuneIceAgent(gatheringOn addresses: [String]) {
        guard let agent = GObjectReference(property: "ice-agent", of: webrtcbin.object) else { return }
        for address in addresses where c1nk_emit_string_returns_bool(agent.object, "add-local-ip-address", address) == 0 {
            log.warning("cannot gather ICE candidates on \(address)")
        }
        // libnice paces its connectivity checks 20 ms apart (RFC 5245's
        // Ta); with the few candidate pairs of a door call, 5 ms reaches
        // the working pair sooner (RFC 8445 allows Ta down to 5 ms).
        guard agent.has(property: "agent"), let nice = agent[object: "agent"] else { return }
        if nice.has(property: "stun-pacing-timer") { nice.set("stun-pacing-timer", fromString: "5") }
        // No UPnP port mapping (libwebrtc does none either): its IGD
        // discovery runs a thread with SSDP sockets per agent that a
        // call ending mid-discovery could leave behind, and it sends
        // multicast at every ring.
        if nice.has(property: "upnp") { nice.set("upnp", fromString: "false") }
    }

    private func watchSignals(onNewStream: ((Element, UInt32) -> Void)?, onReceivingPad: @escaping (Pad) -> Void) {
        // Borrowed in the handlers: each connection holds the element until it is disconnected.
        let object = webrtcbin.object
        signals.append(SignalConnection.connect(object, "on-ice-candidate") { [weak self] (mline: UInt32, candidate: String) in
            MainContext.post { self?.onLocalCandidate?(mline, candidate) }
        })
        signals.append(SignalConnection.connect(object, "notify::connection-state") { [weak self] (_: gpointer?) in
            let state = GstWebRTCPeerConnectionState(rawValue: UInt32(c1nk_object_get_int(object, "connection-state")))
            MainContext.post { self?.onConnectionState?(state) }
        })
        signals.append(SignalConnection.connect(object, "notify::ice-gathering-state") { [weak self] (_: gpointer?) in
            let state = GstWebRTCICEGatheringState(rawValue: UInt32(c1nk_object_get_int(object, "ice-gathering-state")))
            MainContext.post { self?.onGatheringState?(state) }
        })
        signals.append(webrtcbin.connect("on-negotiation-needed") { [weak self] in
            MainContext.post { self?.onNegotiationNeeded?() }
        })
        // webrtcbin 1.22 puts a clocksync before each transport, holding every
        // outgoing packet until the pipeline clock reaches its time plus the
        // pipeline latency (10–20 ms here). Live sources are paced already,
        // so send packets as soon as they are made.
        signals.append(webrtcbin.connect("deep-element-added") { (_: gpointer?, added: gpointer?) in
            guard let element = Element.fromSignalArgument(added), element.factoryName == "clocksync" else { return }
            element.set("sync", fromString: "false")
        })
        if let onNewStream, let rtpbin = webrtcbin.elements.first(where: { $0.factoryName == "rtpbin" }) {
            signals.append(SignalConnection.connect(rtpbin.object, "new-jitterbuffer") { (jitterbuffer: gpointer?, _: UInt32, ssrc: UInt32) in
                guard let jitterbuffer = Element.fromSignalArgument(jitterbuffer) else { return }
                onNewStream(jitterbuffer, ssrc)
            })
        }
        signals.append(webrtcbin.connect("pad-added") { (pad: gpointer?) in
            guard let pad = Pad(retaining: pad), pad.direction == GST_PAD_SRC else { return }
            onReceivingPad(pad)
        })
    }

    /// Applies the remote description; `completion(nil)` on success, or the error.
    package func setRemoteDescription(_ type: GstWebRTCSDPType, sdp: String, completion: @escaping (String?) -> Void) {
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
        c1nk_emit_pointer_pointer(webrtcbin.object, "set-remote-description", description, promise)
        gst_webrtc_session_description_free(description)
        MiniObject.release(promise)
    }

    /// Creates an answer (or offer) and applies it as the local description;
    /// the SDP text or an error, on the main context.
    /// `inactiveLines`: m-lines the answer declines (`a=inactive`; webrtcbin
    /// 1.22 answers port 0 only for a whole bundle, and a bundle whose first
    /// m-line is rejected does not connect).
    package func createLocalDescription(_ type: GstWebRTCSDPType, inactiveLines: Set<Int> = [],
                                completion: @escaping (Result<String, MediaError>) -> Void) {
        let field = type == GST_WEBRTC_SDP_TYPE_ANSWER ? "answer" : "offer"
        let signal = type == GST_WEBRTC_SDP_TYPE_ANSWER ? "create-answer" : "create-offer"
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
                c1nk_emit_pointer_pointer(self.webrtcbin.object, "set-local-description", copy, nil)
                completion(.success(text))
            }
        }
        c1nk_emit_pointer_pointer(webrtcbin.object, signal, nil, promise)
        MiniObject.release(promise)
    }

    /// The transceivers, in m-line order once negotiated.
    package var transceivers: [GObjectReference] {
        guard let array = c1nk_emit_get_transceivers(webrtcbin.object) else { return [] }
        defer { g_array_unref(array) }
        return array.pointee.data.withMemoryRebound(to: gpointer?.self, capacity: Int(array.pointee.len)) { items in
            (0..<Int(array.pointee.len)).compactMap { items[$0].map(GObjectReference.init(retaining:)) }
        }
    }

    /// Replaces the direction of m-line `line` with `inactive`.
    private static func setInactive(_ sdp: UnsafeMutablePointer<GstSDPMessage>?, line: Int) {
        guard let sdp, line < gst_sdp_message_medias_len(sdp),
              let media = gst_sdp_message_get_media(sdp, guint(line)).map({ UnsafeMutablePointer(mutating: $0) }) else { return }
        var index: guint = 0
        while index < gst_sdp_media_attributes_len(media) {
            if let key = gst_sdp_media_get_attribute(media, index)?.pointee.key.map({ String(cString: $0) }),
               directionAttributes.contains(key) {
                gst_sdp_media_remove_attribute(media, index)
            } else {
                index += 1
            }
        }
        gst_sdp_media_add_attribute(media, "inactive", "")
    }

    /// The SDP attributes that say a media line's direction (RFC 8866, section 6.7).
    static let directionAttributes: Set<String> = ["sendrecv", "sendonly", "recvonly", "inactive"]

    package func addRemoteCandidate(mlineIndex: UInt32, candidate: String) {
        guard !candidate.isEmpty else { return } // end-of-candidates: nothing to add in 1.22
        c1nk_emit_uint_string(webrtcbin.object, "add-ice-candidate", mlineIndex, candidate)
    }

    /// Whether `disconnect` ran: no description is set after it (main context).
    private(set) var isClosed = false

    /// Stops listening; call before the pipeline goes to NULL.
    package func disconnect() {
        isClosed = true
        signals.forEach { $0.disconnect() }
        signals.removeAll()
        onLocalCandidate = nil
        onConnectionState = nil
        onNegotiationNeeded = nil
        onGatheringState = nil
    }

    deinit { disconnect() }

    /// Generates the DTLS certificate now, so the first ring does not pay for
    /// it (170–530 ms on a small CPU): dtlsdec caches it for the process.
    /// `stages`: what is warmed now besides; the answerer warms H.264's
    /// decoder only when the door's last call was H.264 (`VideoCodecMemory`),
    /// so that an idle VP8 home does not map libav.
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
