import Foundation
import XCTest
@testable import C1nkGLib
@testable import C1nkService

/// The machine's call slots (`--max-calls`): file locks every answerer
/// process shares, freed by the kernel when their holder goes.
final class CapacitySlotsTests: XCTestCase {
    func testTwoAllocatorsOverOneFolderShareItsSlots() throws {
        let directory = temporaryDirectory() + "/calls"
        let first = try CallSlots(directory: directory, limit: 2)
        let second = try CallSlots(directory: directory, limit: 2)
        let a = try XCTUnwrap(first.claimSlot())
        let b = try XCTUnwrap(second.claimSlot())
        XCTAssertEqual([a.index, b.index], [0, 1], "the lowest free slot first")
        XCTAssertNil(first.claimSlot(), "both slots are taken, whoever took them")
        XCTAssertNil(second.claimSlot())
        a.release()
        XCTAssertFalse(a.isHeld)
        let again = try XCTUnwrap(second.claimSlot(), "a released slot is free again")
        XCTAssertEqual(again.index, 0)
        XCTAssertNil(first.claimSlot())
        // A smaller limit counts the same slots: with two calls up, a limit of one is full.
        XCTAssertNil(try CallSlots(directory: directory, limit: 1).claimSlot())
        withExtendedLifetime((b, again)) {}
    }

    func testASlotGoesBackWhenItsHolderIsDropped() throws {
        let slots = try CallSlots(directory: temporaryDirectory() + "/calls", limit: 1)
        var held = slots.claimSlot()
        XCTAssertNotNil(held)
        XCTAssertNil(slots.claimSlot())
        held = nil
        XCTAssertNotNil(slots.claimSlot(), "the last reference going closes the lock")
    }

    func testASlotHeldByAKilledProcessIsFree() throws {
        let slots = try CallSlots(directory: temporaryDirectory() + "/calls", limit: 1)
        // A process holding slot 0 as an answerer does: an exclusive flock on an open descriptor.
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: "/bin/sh")
        holder.arguments = ["-c", "exec 9>\"$0\" && flock -x 9 && exec sleep 30", slots.path(of: 0)]
        try holder.run()
        defer { if holder.isRunning { kill(holder.processIdentifier, SIGKILL) } }
        waitUntil("the other process to hold the slot") { slots.claimSlot() == nil }
        XCTAssertTrue(holder.isRunning)
        kill(holder.processIdentifier, SIGKILL)
        holder.waitUntilExit()
        let slot = slots.claimSlot()
        XCTAssertEqual(slot?.index, 0, "a dead process leaves no stale slot")
    }

    func testTheFolderIsOwnerOnlyAndTheDefaultFollowsTheUser() throws {
        let directory = temporaryDirectory() + "/run/calls"
        let slots = try CallSlots(directory: directory, limit: 3)
        let slot = try XCTUnwrap(slots.claimSlot())
        let folder = try FileManager.default.attributesOfItem(atPath: directory)
        XCTAssertEqual((folder[.posixPermissions] as? Int).map { $0 & 0o077 }, 0, "owner-only")
        let file = try FileManager.default.attributesOfItem(atPath: slots.path(of: slot.index))
        XCTAssertEqual((file[.posixPermissions] as? Int).map { $0 & 0o077 }, 0)
        XCTAssertThrowsError(try CallSlots(directory: slots.path(of: 0), limit: 1), "a file is no folder")

        XCTAssertEqual(CallSlots.defaultDirectory(environment: [:], isRoot: true), "/run/c1nk/calls")
        XCTAssertEqual(CallSlots.defaultDirectory(environment: ["XDG_RUNTIME_DIR": "/run/user/1000"], isRoot: false),
                       "/run/user/1000/c1nk-calls")
        XCTAssertEqual(CallSlots.defaultDirectory(environment: ["XDG_STATE_HOME": "/var/lib", "HOME": "/home/c1nk"], isRoot: false),
                       "/var/lib/c1nk/calls")
        XCTAssertEqual(CallSlots.defaultDirectory(environment: ["HOME": "/home/c1nk"], isRoot: false),
                       "/home/c1nk/.local/state/c1nk/calls")
    }

    func testAClaimIsCheapEvenWhenTheMachineIsFull() throws {
        let slots = try CallSlots(directory: temporaryDirectory() + "/calls", limit: 50)
        let held = (0..<50).compactMap { _ in slots.claimSlot() }
        XCTAssertEqual(held.count, 50)
        let other = try CallSlots(directory: slots.directory, limit: 50)
        let start = MainContext.monotonicSeconds()
        for _ in 0..<20 { XCTAssertNil(other.claimSlot()) }
        let each = (MainContext.monotonicSeconds() - start) / 20
        // The ring waits for this: 50 opens and failed locks, well under a millisecond on this machine.
        XCTAssertLessThan(each, 0.02, "a full machine's claim took \(each * 1000) ms")
        withExtendedLifetime(held) {}
    }
}
