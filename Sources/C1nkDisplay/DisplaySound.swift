/// The display's sounds, played through the process's one speaker: a click
/// for every touch or key that does something, a chime when the door opens,
/// and a short falling tone when the resident hangs up or rejects.
public enum DisplaySound: Equatable, Sendable { case click, doorOpened, leave }
