/// One option of `c1nk-gst-answer`: its name on the command line (`--name`)
/// and in the config file (`name = …`), its help, and how a value is applied.
/// The rows live in `AnswerOption.sections` (all of them in `AnswerOption.all`);
/// parsing, the config file, `--help`, `--print-config` and SIGHUP all read
/// the same table.
struct AnswerOption: Sendable {
    enum Kind {
        /// `--name`; in the config file `name = true|false`.
        case flag
        /// `--name VALUE`.
        case value(String)
        /// `--name VALUE`, repeatable; in the config file `name = a;b;c`.
        case list(String)
    }

    enum Scope {
        /// A command-line option and a config key.
        case everywhere
        /// Only on the command line (`--help`, `--config`, …).
        case commandLineOnly
    }

    enum Reload {
        /// SIGHUP applies a new value (to the next call when a call is in progress).
        case live
        /// A new value needs a restart; SIGHUP says so.
        case restart
    }

    let name: String
    var short: String? = nil
    let kind: Kind
    var scope = Scope.everywhere
    var reload = Reload.restart
    /// Help lines; the first is beside the option, the others below it.
    let help: [String]
    /// Applies one value ("true"/"false" for a flag). Errors are usage errors.
    let apply: @Sendable (inout AnswerCommandLine, String) throws -> Void
    /// The effective value, as a config file would spell it (`--print-config`).
    var show: (@Sendable (AnswerCommandLine) -> String)? = nil

    var option: String { "--" + name }

    var metavar: String? {
        switch kind {
        case .flag: return nil
        case .value(let m), .list(let m): return m
        }
    }

    static func named(_ name: String) -> AnswerOption? {
        all.first { $0.name == name || ($0.short != nil && $0.short == name) }
    }

    /// The `--help` text of every option, by section, in table order.
    static func helpText() -> String {
        var lines: [String] = []
        for section in sections {
            if !lines.isEmpty { lines.append("") }
            lines.append(section.title + ":")
            for row in section.options { lines += row.helpLines }
        }
        return lines.joined(separator: "\n")
    }

    /// This option's lines of `--help`: the option and its first help line
    /// (that line below it when the option is too long), then the others.
    private var helpLines: [String] {
        let head = "  " + option + (metavar.map { " " + $0 } ?? "")
        let pad = String(repeating: " ", count: 27)
        let first = head.count < 26 ? head + String(repeating: " ", count: 27 - head.count) + help[0]
            : head + "\n" + pad + help[0]
        return [first] + help.dropFirst().map { pad + $0 }
    }
}

/// A titled group of options, as `--help` shows them.
struct AnswerOptionSection: Sendable {
    let title: String
    let options: [AnswerOption]
}
