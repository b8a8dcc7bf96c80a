import C1nkDoor
import Foundation

/// What Chromium says of the video it received (`getStats`' inbound-rtp),
/// summed over a call's peer connections (the page offers anew after a
/// drop-out) and over calls: freezes, its jitter buffer (how much of the
/// playout-delay range it used), NACKs sent and packets lost.
struct PageVideoStats: Codable {
    var framesDecoded = 0
    var freezes = 0
    var freezeSeconds = 0.0
    var jitterBufferSeconds = 0.0
    var jitterBufferFrames = 0
    var nacksSent = 0
    var packetsLost = 0
    var connections = 0

    /// Mean time a frame waited in Chromium's jitter buffer.
    var jitterBufferMs: Double { jitterBufferFrames > 0 ? jitterBufferSeconds * 1000 / Double(jitterBufferFrames) : 0 }

    var summary: String {
        String(format: "%d frames decoded, %d freezes (%.1f s), jitter buffer %.0f ms mean, %d NACKs sent, %d packets lost, %d connections",
               framesDecoded, freezes, freezeSeconds, jitterBufferMs, nacksSent, packetsLost, connections)
    }

    mutating func add(_ other: PageVideoStats) {
        framesDecoded += other.framesDecoded
        freezes += other.freezes
        freezeSeconds += other.freezeSeconds
        jitterBufferSeconds += other.jitterBufferSeconds
        jitterBufferFrames += other.jitterBufferFrames
        nacksSent += other.nacksSent
        packetsLost += other.packetsLost
        connections += other.connections
    }

    /// The peer connections the page made from the `from`th on (the probe keeps them).
    static func read(_ page: DevToolsBrowser.Page, connectionsFrom first: Int) throws -> PageVideoStats {
        let script = """
            (async () => { const all = { framesDecoded: 0, freezes: 0, freezeSeconds: 0, jitterBufferSeconds: 0, jitterBufferFrames: 0, nacksSent: 0, packetsLost: 0, connections: 0 };
              for (const pc of window.__bench.pcs.slice(\(first))) { all.connections += 1;
                try { (await pc.getStats()).forEach((r) => { if (r.type !== 'inbound-rtp' || r.kind !== 'video') return;
                  all.framesDecoded += r.framesDecoded || 0; all.freezes += r.freezeCount || 0; all.freezeSeconds += r.totalFreezesDuration || 0;
                  all.jitterBufferSeconds += r.jitterBufferDelay || 0; all.jitterBufferFrames += r.jitterBufferEmittedCount || 0;
                  all.nacksSent += r.nackCount || 0; all.packetsLost += r.packetsLost || 0; }); } catch (e) {} }
              return JSON.stringify(all); })()
            """
        guard let text = try page.evaluate(script) as? String else { return PageVideoStats() }
        return try JSONDecoder().decode(PageVideoStats.self, from: Data(text.utf8))
    }
}
