import C1nkCall
import XCTest
@testable import C1nkDisplay

/// Layout and painting without a pipeline: every screen at odd sizes, hostile
/// names, and hit-testing on the drawn buttons.
final class ScreenLayoutTests: XCTestCase {
    static let hostileNames = [
        String(repeating: "Hlavný vchod ", count: 40).prefix(500).description,
        "🚪🔔 Vchod 👋🏽👨‍👩‍👧‍👦 " + String(repeating: "🏠", count: 200),
        "المدخل الرئيسي للمبنى السكني رقم خمسة وعشرون في الشارع الرئيسي",
        "Line\nbreak\tand\u{0}nul",
        "",
    ]

    /// Every way a call ends.
    static let allEndReasons: [CallMachine.EndReason] = [.hangup, .rejected, .remote, .answeredElsewhere, .noConnection,
                                                         .mediaFailed, .lost, .serverError, .shutdown]

    static func scenes(door: String) -> [DisplayScene] {
        let screens: [DisplayMachine.Screen] = [
            .idle, .ringing(door: door, preview: false), .ringing(door: door, preview: true),
            .inCall(.init(door: door, picture: .showing, muted: true)), .inCall(.init(door: door, picture: .none, notice: .unlocked)),
            .inCall(.init(door: door, picture: .waiting, notice: .failed)),
        ] + allEndReasons.map { .ended(door: door, reason: $0) }
        return screens.map { screen in
            var scene = DisplayScene()
            scene.screen = screen
            scene.building = door
            scene.clock = "14:32"
            scene.date = door
            scene.history = Array(repeating: .init(title: door, subtitle: door), count: 12)
            return scene
        }
    }

    func testEveryScreenLaysOutInsideOddSizesWithHostileNames() {
        for (width, height) in [(480, 272), (1280, 800), (800, 480), (600, 1024), (64, 64)] {
            for name in Self.hostileNames {
                for scene in Self.scenes(door: name) {
                    let layout = ScreenLayout(scene: scene, width: width, height: height)
                    for item in layout.items {
                        let rect: ScreenLayout.Rect
                        switch item {
                        case .text(_, let r, _, _, _), .haloText(_, let r, _, _, _), .icon(_, let r, _), .fill(let r, _, _), .gradient(let r, _, _): rect = r
                        case .button(let button): rect = button.frame
                        case .circle: continue
                        }
                        if width >= 480 {
                            XCTAssertGreaterThanOrEqual(rect.x, -0.5, "\(item) at \(width)x\(height)")
                            XCTAssertLessThanOrEqual(rect.maxX, Double(width) + 0.5, "\(item) at \(width)x\(height)")
                            XCTAssertLessThanOrEqual(rect.maxY, Double(height) + 0.5, "\(item) at \(width)x\(height)")
                        }
                    }
                    let buttons = layout.buttons
                    for (i, a) in buttons.enumerated() {
                        for b in buttons[(i + 1)...] {
                            let overlap = a.frame.x < b.frame.maxX && b.frame.x < a.frame.maxX && a.frame.y < b.frame.maxY && b.frame.y < a.frame.maxY
                            XCTAssertFalse(overlap, "\(a.control) overlaps \(b.control) at \(width)x\(height)")
                        }
                    }
                }
            }
        }
    }

    func testHostileNamesPaintWithAnEllipsisInsideTheirRectangle() {
        for name in Self.hostileNames {
            var scene = DisplayScene()
            scene.screen = .ringing(door: name, preview: false)
            let layout = ScreenLayout(scene: scene, width: 480, height: 272)
            let layers = ScreenPainter.paint(layout)
            XCTAssertEqual(layers.base.bytes.count, 480 * 272 * 4)
            guard case let .text(_, rect, _, _, _)? = layout.items.first(where: { if case .text(let t, _, _, _, _) = $0 { return t == name } else { return false } }) else {
                continue
            }
            // Nothing of the name is drawn left or right of its rectangle.
            let canvas = Canvas(width: 480, height: 272, alpha: true)
            ScreenPainter.draw([.text(name, rect, DisplayFont.display.scaled(layout.unit), .text, .center)], on: canvas, unit: layout.unit)
            let picture = canvas.picture()
            for y in 0..<272 {
                for x in 0..<480 where picture.bytes[(y * 480 + x) * 4 + 3] > 0 {
                    XCTAssertTrue(Double(x) >= rect.x - 1 && Double(x) <= rect.maxX + 1, "ink at \(x),\(y) outside \(rect) for \(name.prefix(20))")
                }
            }
        }
    }

    func testTouchTargetsAreTheDrawnButtons() {
        var scene = DisplayScene()
        scene.screen = .inCall(.init(door: "Dvor", picture: .showing))
        let layout = ScreenLayout(scene: scene, width: 800, height: 480)
        for control in [ScreenLayout.Control.open, .mute, .hangup] {
            let frame = try! XCTUnwrap(layout.frame(of: control))
            XCTAssertEqual(layout.control(atX: frame.midX, y: frame.midY), control)
        }
        XCTAssertNil(layout.control(atX: 5, y: 5))
        scene.screen = .ringing(door: "Dvor", preview: false)
        let ringing = ScreenLayout(scene: scene, width: 800, height: 480)
        XCTAssertEqual(Set(ringing.buttons.map(\.control)), [.accept, .reject])
    }

    /// The end screen says why, in Slovak; a reason without words of its own as the event names it.
    func testEveryEndReasonHasItsText() {
        let texts = Self.allEndReasons.map(ScreenLayout.reasonText)
        XCTAssertEqual(texts, ["Zavesili ste", "Odmietnuté", "Dvere ukončili hovor", "Prijaté na inom zariadení",
                               "Spojenie s dverami sa nepodarilo nadviazať", "Chyba zvuku alebo obrazu", "lost", "server-error",
                               "Aplikácia sa vypína"])
        var scene = DisplayScene()
        for (reason, text) in zip(Self.allEndReasons, texts) {
            scene.screen = .ended(door: "Dvor", reason: reason)
            let layout = ScreenLayout(scene: scene, width: 800, height: 480)
            let shown = layout.items.compactMap { item -> String? in if case .text(let t, _, _, _, _) = item { return t } else { return nil } }
            XCTAssertEqual(shown, ["DVOR", reason == .noConnection ? "Bez pripojenia" : "Hovor ukončený", text], "\(reason)")
        }
    }
}
