import CGStreamer

/// What a new state of webrtcbin's peer connection means for the call.
enum ConnectionChange: Equatable {
    /// Connected: the first time, or back after a loss.
    case connected
    /// Lost after it had connected: the call decides how long to wait for it
    /// (or a fresh offer).
    case lost
    /// Failed before it ever connected: no ICE path.
    case failedToConnect
    /// Nothing the call acts on.
    case nothing

    init(_ state: GstWebRTCPeerConnectionState, wasConnected: Bool) {
        switch state {
        case GST_WEBRTC_PEER_CONNECTION_STATE_CONNECTED:
            self = wasConnected ? .nothing : .connected
        case GST_WEBRTC_PEER_CONNECTION_STATE_DISCONNECTED, GST_WEBRTC_PEER_CONNECTION_STATE_FAILED,
             GST_WEBRTC_PEER_CONNECTION_STATE_CLOSED:
            if wasConnected {
                self = .lost
            } else {
                self = state == GST_WEBRTC_PEER_CONNECTION_STATE_FAILED ? .failedToConnect : .nothing
            }
        default:
            self = .nothing
        }
    }
}
