/// The order of an object's keys in JSON written with sorted keys, as Foundation's
/// `JSONSerialization` sorted them (numbers by value, case ignored, then lower
/// case first): the answerer does not link Foundation, to keep ICU out of its memory.
enum JSONKeyOrder {
    /// ASCII punctuation before digits before letters, the order Foundation gave them.
    private static let ranks: [UInt32: Int] = {
        var ranks: [UInt32: Int] = [:]
        for (rank, scalar) in "\t\n\u{B}\u{C}\r _-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$0123456789abcdefghijklmnopqrstuvwxyz"
            .unicodeScalars.enumerated() {
            ranks[scalar.value] = rank + 1
        }
        return ranks
    }()

    private static func folded(_ scalar: UInt32) -> UInt32 {
        (65...90).contains(scalar) ? scalar + 32 : scalar
    }

    private static func isDigit(_ scalar: UInt32) -> Bool { (48...57).contains(scalar) }

    /// Other ASCII (controls) first, then the ranked characters, then the rest of Unicode by scalar.
    private static func weight(_ scalar: UInt32) -> (Int, UInt32) {
        let scalar = folded(scalar)
        if let rank = ranks[scalar] { return (1, UInt32(rank)) }
        return scalar < 128 ? (0, scalar) : (2, scalar)
    }

    static func precedes(_ a: String, _ b: String) -> Bool {
        let x = a.unicodeScalars.map(\.value), y = b.unicodeScalars.map(\.value)
        var i = 0, j = 0
        while i < x.count && j < y.count {
            if isDigit(x[i]) && isDigit(y[j]) {
                var endX = i, endY = j
                while endX < x.count && isDigit(x[endX]) { endX += 1 }
                while endY < y.count && isDigit(y[endY]) { endY += 1 }
                let runX = x[i..<endX].drop { $0 == 48 }, runY = y[j..<endY].drop { $0 == 48 }
                if runX.count != runY.count { return runX.count < runY.count }
                if !runX.elementsEqual(runY) { return runX.lexicographicallyPrecedes(runY) }
                i = endX
                j = endY
                continue
            }
            let wx = weight(x[i]), wy = weight(y[j])
            if wx != wy { return wx < wy }
            i += 1
            j += 1
        }
        if i < x.count || j < y.count { return i >= x.count }
        // Equal but for case (or leading zeros): lower case first, then by scalar.
        for (p, q) in zip(x, y) where p != q {
            if folded(p) == folded(q) { return p > q }
            return p < q
        }
        return x.count < y.count
    }
}
