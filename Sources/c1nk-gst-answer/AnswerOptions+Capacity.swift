import C1nkAnswerer
import C1nkCommandLine
import C1nkMedia
import C1nkService
import FoundationEssentials

/// How many calls this machine carries at once, shared by every answerer on
/// it (docs/benchmarks.md, "Scale"): `--max-calls N|auto|off` and the
/// folder of the slots, `--calls-dir`.
struct CapacityOptions {
    enum Limit: Equatable {
        case auto, off
        case calls(Int)
    }

    var limit = Limit.auto
    var directory: String?

    /// Calls a core carries, measured on two cores (docs/benchmarks.md, Scale):
    /// 50 record-only calls, 16 decoded ones (`display` into a sink).
    static let recordOnlyCallsPerCore = 25
    static let decodedCallsPerCore = 8

    /// `auto`: cores × 25 when the pipeline decodes no video (`record`,
    /// `audio`), cores × 8 when it does.
    static func automaticLimit(cores: Int, decodesVideo: Bool) -> Int {
        max(1, cores) * (decodesVideo ? decodedCallsPerCore : recordOnlyCallsPerCore)
    }

    /// The limit in calls for this media; nil when there is none (`off`).
    func calls(for media: MediaConfiguration, cores: Int = ProcessInfo.processInfo.activeProcessorCount) -> Int? {
        switch limit {
        case .off: return nil
        case .calls(let n): return n
        case .auto: return Self.automaticLimit(cores: cores, decodesVideo: media.resolvedPipelineUses("sink"))
        }
    }

    /// The machine's call slots for this media, or nil with `off`.
    func makeSlots(for media: MediaConfiguration) throws -> CallSlots? {
        guard let calls = calls(for: media) else { return nil }
        return try CallSlots(directory: directory ?? CallSlots.defaultDirectory(), limit: calls)
    }

    var shown: String {
        switch limit {
        case .auto: return "auto"
        case .off: return "off"
        case .calls(let n): return String(n)
        }
    }
}

extension CallSlots: CallCapacity {
    public func claim() -> (any CallSlot)? { claimSlot() }
}

extension CallSlots.Slot: CallSlot {}

extension AnswerOption {
    static let capacity = AnswerOptionSection(title: "Capacity (every answerer on this machine shares it)", options: [
        AnswerOption(name: "max-calls", kind: .value("N|auto|off"),
                     help: ["calls at once on this machine; a ring beyond it is not answered: a missed",
                            "event (reason over-capacity). auto (default): cores × 25 record-only,",
                            "cores × 8 when the pipeline decodes video; off: no limit"],
                     apply: { c, v in
                         switch v {
                         case "auto": c.capacity.limit = .auto
                         case "off": c.capacity.limit = .off
                         default:
                             guard let n = Int(v), n >= 1, n <= 10_000 else {
                                 throw ArgumentReader.UsageError("--max-calls takes a number of calls from 1 to 10000, auto or off, not '\(v)'")
                             }
                             c.capacity.limit = .calls(n)
                         }
                     }, show: { $0.capacity.shown }),
        AnswerOption(name: "calls-dir", kind: .value("DIR"),
                     help: ["the call slots every answerer on this machine shares (owner-only; default",
                            "/run/c1nk/calls as root, else $XDG_RUNTIME_DIR/c1nk-calls)"],
                     apply: { c, v in c.capacity.directory = try nonEmpty(v, "--calls-dir", what: "a folder") },
                     show: { $0.capacity.directory ?? CallSlots.defaultDirectory() }),
    ])
}
