/// Which element feeds which in a gst-launch description, read from its text.
///
/// The built pipeline cannot say it: `decodebin` and other elements with
/// "sometimes" pads are linked only once media flows. The text can, because
/// `a ! b` means "a feeds b" whatever pads appear later. Handles chains,
/// properties (quoted values too), caps between `!`, and references
/// (`mux.`, `split.src_1`) to named elements; parentheses of bins are read
/// through.
package struct PipelineGraph {
    struct Node: Equatable {
        /// The factory name ("volume"), a caps string, or a placeholder marker.
        var factory: String
        var name: String?
        /// 1-based line of the description where the element is written.
        var line: Int
        var isCaps = false
    }

    private(set) var nodes: [Node] = []
    /// Downstream neighbours of each node.
    private(set) var downstream: [[Int]] = []

    package init(lines: [String]) {
        var references: [Int: String] = [:]
        var edges: [(Int, Int)] = []
        var previous: Int?
        var linkPending = false

        func add(_ node: Node, reference: String? = nil) {
            let index = nodes.count
            nodes.append(node)
            if let reference { references[index] = reference }
            if linkPending, let previous { edges.append((previous, index)) }
            previous = index
            linkPending = false
        }

        for (lineIndex, line) in lines.enumerated() {
            for token in Self.tokens(line) {
                let bare = Self.unquoted(token)
                if token == "!" {
                    linkPending = true
                } else if token == "(" || token == ")" {
                    continue
                } else if Self.isCaps(bare) {
                    add(Node(factory: bare, line: lineIndex + 1, isCaps: true))
                } else if let equals = token.firstIndex(of: "="), Self.isIdentifier(token[..<equals]) {
                    // A property of the element before it.
                    if token[..<equals] == "name", let previous, !linkPending {
                        nodes[previous].name = Self.unquoted(String(token[token.index(after: equals)...]))
                    }
                } else if let dot = token.firstIndex(of: "."), Self.isIdentifier(token[..<dot]) {
                    add(Node(factory: "", line: lineIndex + 1), reference: String(token[..<dot]))
                } else {
                    add(Node(factory: token, line: lineIndex + 1))
                }
            }
        }

        // A reference stands for the element of that name: move its links there.
        var resolved = Array(nodes.indices)
        for (index, name) in references {
            if let target = nodes.indices.first(where: { nodes[$0].name == name && references[$0] == nil }) {
                resolved[index] = target
            }
        }
        downstream = Array(repeating: [], count: nodes.count)
        for (from, to) in edges {
            let a = resolved[from], b = resolved[to]
            if a != b, !downstream[a].contains(b) { downstream[a].append(b) }
        }
    }

    /// The node named `name` (`name=` property), if any.
    func node(named name: String) -> Int? {
        nodes.indices.first { nodes[$0].name == name }
    }

    /// Nodes reachable downstream of `start` without passing through a node
    /// in `barriers` (`start` itself excluded).
    func reachable(from start: Int, avoiding barriers: Set<Int>) -> [Int] {
        var seen: Set<Int> = [start]
        var stack = [start]
        var result: [Int] = []
        while let current = stack.popLast() {
            for next in downstream[current] where !seen.contains(next) {
                seen.insert(next)
                result.append(next)
                if !barriers.contains(next) { stack.append(next) }
            }
        }
        return result.sorted()
    }

    // MARK: - Tokens

    /// Splits a line into words, `!`, `(` and `)`, keeping quoted strings whole.
    static func tokens(_ line: String) -> [String] {
        var tokens: [String] = []
        var current = ""
        var quote: Character?
        func flush() {
            if !current.isEmpty { tokens.append(current) }
            current = ""
        }
        for character in line {
            if let open = quote {
                current.append(character)
                if character == open { quote = nil }
            } else if character == "\"" || character == "'" {
                quote = character
                current.append(character)
            } else if character == "!" || character == "(" || character == ")" {
                flush()
                tokens.append(String(character))
            } else if character.isWhitespace {
                flush()
            } else {
                current.append(character)
            }
        }
        flush()
        return tokens
    }

    private static func unquoted(_ text: String) -> String {
        var text = Substring(text)
        if let first = text.first, first == "\"" || first == "'" { text = text.dropFirst() }
        if let last = text.last, last == "\"" || last == "'" { text = text.dropLast() }
        return String(text)
    }

    /// `audio/x-raw,rate=48000`, `video/x-raw`, `application/x-rtp, …`.
    private static func isCaps(_ text: String) -> Bool {
        guard let slash = text.firstIndex(of: "/") else { return false }
        return isIdentifier(text[..<slash]) && !text[..<slash].isEmpty
    }

    private static func isIdentifier(_ text: Substring) -> Bool {
        !text.isEmpty && text.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }
    }
}
