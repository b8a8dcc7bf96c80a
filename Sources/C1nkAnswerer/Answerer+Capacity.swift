import C1nkCall
import C1nkProtocol

/// A ring takes one of the machine's call slots before it rings; a ring
/// that finds none is missed `over-capacity`, and the slot goes back when
/// the call ends.
extension Answerer {
    func incoming(callId: String, doorName: String) {
        if let refusal = ServerIdentifier.refusal(callId) {
            // Refused before it takes a slot or rings: the machine reports it missed.
            log.warning("a ring from \(doorName) was refused: its callId \"\(ServerIdentifier.printable(callId))\" is not a valid id (\(refusal)); nothing was built from it")
            handle(.incoming(callId: callId, doorName: doorName))
            return
        }
        // Only a ring that would start a call needs room: a repeat, or one while in a call, is the machine's to refuse.
        guard let capacity, machine.call == nil, !machine.handledCallIds.contains(callId) else {
            handle(.incoming(callId: callId, doorName: doorName))
            return
        }
        guard let slot = capacity.claim() else {
            log.warning("""
                a ring from \(doorName) (call \(callId)) was not answered: this machine already carries \
                \(capacity.limit) call(s), its --max-calls; raise --max-calls or run fewer answerers on this machine
                """)
            handle(.overCapacity(callId: callId, doorName: doorName))
            return
        }
        heldSlot = slot
        handle(.incoming(callId: callId, doorName: doorName))
    }

    /// Gives the slot back once no call is in progress.
    func releaseSlotIfIdle() {
        guard machine.call == nil, let slot = heldSlot else { return }
        heldSlot = nil
        slot.release()
    }
}
