/// The calls this machine can carry at once, whoever answers them: the
/// answerer claims a slot for each ring it rings and releases it when the
/// call ends. A ring that finds no free slot is not answered: it is reported
/// `missed` with reason `over-capacity`, and the calls in progress go on.
/// `CallSlots` (C1nkService, file locks shared by the processes of a
/// machine) is the real one; tests may count in memory.
public protocol CallCapacity: AnyObject {
    /// How many calls fit at once.
    var limit: Int { get }
    /// A free slot, taken at once without waiting (the ring must not wait);
    /// nil when every slot is taken.
    func claim() -> (any CallSlot)?
}

/// One call's place in a `CallCapacity`, held until `release()`.
public protocol CallSlot: AnyObject {
    func release()
}
