import C1nkGLib

/// The privacy rule of every call pipeline: nothing of the door is heard in
/// the room, and nothing of the room reaches the door, before the user
/// accepts. The `speaker` and `microphone` volumes are the gates (muted until
/// accept); this check refuses, at start-up, a description with a path
/// around them, whether its sink or source is a placeholder or hard-coded.
extension PipelineDescription {
    /// Markers that stand for the user's elements in the graph.
    static let audioSinkMarker = "{audio-sink}"
    static let audioSourceMarker = "{audio-source}"

    /// Throws when door audio can reach an audio sink without passing the
    /// `speaker` gate, or an audio source can reach the door (`audio-out`)
    /// or any sink without passing the `microphone` gate.
    func checkPrivacyGates() throws {
        let graph = PipelineGraph(lines: lines.map(Self.markPlaceholders))
        let speaker = graph.node(named: "speaker")
        let microphone = graph.node(named: "microphone")

        if let input = graph.node(named: "audio-in") {
            for node in graph.reachable(from: input, avoiding: Set([speaker].compactMap { $0 }))
            where node != speaker && isAudioSink(graph.nodes[node]) {
                let sink = graph.nodes[node]
                throw PipelineError(file: path, line: sink.line, element: sink.factory,
                                    message: "the door's audio reaches this sink without passing the volume named 'speaker' "
                                        + "(the gate that keeps it silent until you accept); put the sink after the speaker gate")
            }
        }
        for source in graph.nodes.indices where isAudioSource(graph.nodes[source]) {
            for node in graph.reachable(from: source, avoiding: Set([microphone].compactMap { $0 }))
            where node != microphone && (graph.nodes[node].name == "audio-out" || isSink(graph.nodes[node])) {
                let origin = graph.nodes[source]
                let target = graph.nodes[node].name == "audio-out" ? "the door (audio-out)" : "the sink \(graph.nodes[node].factory)"
                throw PipelineError(file: path, line: origin.line, element: origin.factory,
                                    message: "this microphone reaches \(target) without passing the volume named 'microphone' "
                                        + "(the gate that keeps it off until you accept); route it through the microphone gate")
            }
        }
    }

    /// The line with the user's placeholders as markers and the call's as
    /// stand-in values, so that the graph shows where each element sits.
    private static func markPlaceholders(_ line: String) -> String {
        var values = standInValues
        values["audio-sink"] = audioSinkMarker
        values["audio-source"] = audioSourceMarker
        values["sink"] = "{sink}"
        values["record-location"] = "/dev/null"
        var result = line
        for (key, value) in values { result = result.replacing("{\(key)}", with: value) }
        return result
    }

    private func isAudioSink(_ node: PipelineGraph.Node) -> Bool {
        node.factory == Self.audioSinkMarker || Self.klass(node).contains("Sink") && Self.klass(node).contains("Audio")
    }

    private func isAudioSource(_ node: PipelineGraph.Node) -> Bool {
        node.factory == Self.audioSourceMarker || Self.klass(node).contains("Source") && Self.klass(node).contains("Audio")
    }

    private func isSink(_ node: PipelineGraph.Node) -> Bool {
        node.factory == Self.audioSinkMarker || node.factory == "{sink}" || Self.klass(node).contains("Sink")
    }

    /// The factory's class ("Sink/Audio"), empty for caps, markers and unknown names.
    private static func klass(_ node: PipelineGraph.Node) -> String {
        guard !node.isCaps, !node.factory.isEmpty, !node.factory.hasPrefix("{") else { return "" }
        return ElementFactory(named: node.factory)?.klass ?? ""
    }
}
