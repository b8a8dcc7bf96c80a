import C1nkCall

/// Where everything of one scene goes at one display size: the single source
/// of geometry for the painter and for hit-testing touches, so a tap lands on
/// exactly what was drawn. Sizes are the C1nk design's points (24 pt margins,
/// 60 pt action buttons, 56 pt round ones, the type scale of `DisplayFont`),
/// scaled by `unit` (a 480-pixel short side is 1 pt per pixel).
struct ScreenLayout: Equatable, Sendable {
    struct Rect: Equatable, Sendable {
        var x: Double, y: Double, width: Double, height: Double
        init(x: Double, y: Double, width: Double, height: Double) {
            self.x = x; self.y = y; self.width = width; self.height = height
        }
        var maxX: Double { x + width }
        var maxY: Double { y + height }
        var midX: Double { x + width / 2 }
        var midY: Double { y + height / 2 }
        func contains(_ px: Double, _ py: Double) -> Bool {
            px >= x && px < maxX && py >= y && py < maxY
        }
    }

    enum Alignment: Sendable { case leading, center, trailing }

    /// What a button does; the display turns it into an answerer command.
    enum Control: String, Equatable, Sendable, CaseIterable {
        case accept, reject, open, hangup, mute, unmute
    }

    enum ButtonStyle: Equatable, Sendable {
        /// The one green action: full green, dark text.
        case primary
        /// Hang up, reject, a failure: full danger, white text.
        case danger
        /// A 56 pt circle on `surface2`; `active` fills it with text colour.
        case round(active: Bool)
        /// A round danger button.
        case roundDanger
    }

    struct Button: Equatable, Sendable {
        var control: Control
        var frame: Rect
        var style: ButtonStyle
        var icon: Icon
        var title: String?
        /// The caption under a round button.
        var caption: String?
        /// The keys that do the same.
        var keyHint: String?
    }

    enum Item: Equatable, Sendable {
        case fill(Rect, DisplayColor, cornerRadius: Double)
        case circle(centerX: Double, centerY: Double, radius: Double, DisplayColor)
        /// Vertical gradient from `top` to `bottom` colour.
        case gradient(Rect, top: DisplayColor, bottom: DisplayColor)
        case text(String, Rect, DisplayFont, DisplayColor, Alignment)
        /// Text with a dark halo, legible over any video without a scrim.
        case haloText(String, Rect, DisplayFont, DisplayColor, Alignment)
        case icon(Icon, Rect, DisplayColor)
        case button(Button)
    }

    /// What lies under the drawn items.
    enum Background: Equatable, Sendable {
        /// The panel colour, opaque: no video shows.
        case panel
        /// The door's video, under a panel-coloured veil of this opacity.
        case video(veil: Double)
    }

    /// The ringing pulse: circles from `from` to `to` pt diameter.
    struct Pulse: Equatable, Sendable {
        var centerX: Double, centerY: Double
        var fromDiameter: Double, toDiameter: Double
        var animated: Bool
    }

    let width: Int
    let height: Int
    let unit: Double
    private(set) var background = Background.panel
    private(set) var items: [Item] = []
    private(set) var pulse: Pulse?

    var buttons: [Button] {
        items.compactMap { if case .button(let button) = $0 { return button } else { return nil } }
    }

    /// The control under a touch or click at display pixel (x, y).
    func control(atX x: Double, y: Double) -> Control? {
        buttons.first { $0.frame.contains(x, y) }?.control
    }

    func frame(of control: Control) -> Rect? {
        buttons.first { $0.control == control }?.frame
    }

    init(scene: DisplayScene, width: Int, height: Int) {
        self.width = max(1, width)
        self.height = max(1, height)
        unit = Double(min(self.width, self.height)) / 480
        switch scene.screen {
        case .idle: layOutHome(scene)
        case let .ringing(door, preview): layOutRinging(scene, door: door, preview: preview)
        case .inCall(let call): layOutCall(call)
        case let .ended(door, reason): layOutEnded(door: door, reason: reason)
        }
    }

    // MARK: - Metrics

    private var w: Double { Double(width) }
    private var h: Double { Double(height) }
    private var margin: Double { 24 * unit }
    private func font(_ base: DisplayFont) -> DisplayFont { base.scaled(unit) }
    /// Line height of a font: 1.25 × its size.
    private func lineHeight(_ base: DisplayFont) -> Double { (base.size * unit * 1.25).rounded(.up) }

    private mutating func text(_ string: String, x: Double, y: Double, width: Double, _ base: DisplayFont,
                               _ color: DisplayColor, _ alignment: Alignment = .leading) {
        items.append(.text(string, Rect(x: x, y: y, width: max(1, width), height: lineHeight(base)), font(base), color, alignment))
    }

    private mutating func connectionDot(_ connected: Bool, right: Double, top: Double) {
        let radius = 5 * unit
        items.append(.circle(centerX: right - radius, centerY: top + lineHeight(.overline) / 2, radius: radius,
                             connected ? .green : .textDim))
    }

    private mutating func divider(x: Double, y: Double, width: Double) {
        items.append(.fill(Rect(x: x, y: y, width: width, height: max(1, unit.rounded(.down))), .line, cornerRadius: 0))
    }

    // MARK: - Screens

    private static let clockFont = DisplayFont(size: 64, weight: .semibold, tracking: -1)

    private mutating func layOutHome(_ scene: DisplayScene) {
        background = .panel
        let landscape = w >= h
        let columnWidth = landscape ? w * 0.42 - margin : w - 2 * margin
        var y = margin
        text(scene.building.uppercased(), x: margin, y: y, width: columnWidth - 16 * unit, .overline, .textDim)
        y += lineHeight(.overline) + 12 * unit
        text(scene.clock, x: margin, y: y, width: columnWidth, Self.clockFont, .text)
        y += lineHeight(Self.clockFont)
        text(scene.date, x: margin, y: y, width: columnWidth, .body, .textDim)
        y += lineHeight(.body) + 24 * unit

        let listX = landscape ? w * 0.42 + margin : margin
        let listWidth = w - listX - margin
        var top = landscape ? margin : y
        connectionDot(scene.connected, right: w - margin, top: margin)
        text("POSLEDNÉ ZVONENIA", x: listX, y: top, width: listWidth - 24 * unit, .overline, .textDim)
        top += lineHeight(.overline) + 8 * unit
        divider(x: listX, y: top, width: listWidth)
        if scene.history.isEmpty {
            text("Zatiaľ žiadne zvonenia", x: listX, y: top + 16 * unit, width: listWidth, .caption, .textDim)
            return
        }
        let rowHeight = 16 * unit * 2 + lineHeight(.body) + 2 * unit + lineHeight(.caption)
        for row in scene.history where top + rowHeight <= h - margin / 2 {
            text(row.title, x: listX, y: top + 16 * unit, width: listWidth, .body, .text)
            text(row.subtitle, x: listX, y: top + 16 * unit + lineHeight(.body) + 2 * unit, width: listWidth, .caption, .textDim)
            top += rowHeight
            divider(x: listX, y: top, width: listWidth)
        }
    }

    private mutating func layOutRinging(_ scene: DisplayScene, door: String, preview: Bool) {
        background = preview ? .video(veil: 0.55) : .panel
        text("ZVONÍ", x: margin, y: margin, width: w / 2, .overline, .textDim)
        connectionDot(scene.connected, right: w - margin, top: margin)
        let centerX = w / 2
        let centerY = (h * 0.40).rounded()
        pulse = Pulse(centerX: centerX, centerY: centerY, fromDiameter: 110 * unit, toDiameter: 240 * unit,
                      animated: !scene.reduceMotion)
        items.append(.circle(centerX: centerX, centerY: centerY, radius: 55 * unit, .surface2))
        let iconSize = 40 * unit
        items.append(.icon(.bell, Rect(x: centerX - iconSize / 2, y: centerY - iconSize / 2, width: iconSize, height: iconSize), .text))
        text(door, x: margin, y: centerY + 120 * unit + 12 * unit, width: w - 2 * margin, .display, .text, .center)

        let rowWidth = min(w - 2 * margin, 560 * unit)
        let gap = 16 * unit
        let buttonWidth = (rowWidth - gap) / 2
        let y = h - margin - 60 * unit
        let left = (w - rowWidth) / 2
        items.append(.button(Button(control: .reject, frame: Rect(x: left, y: y, width: buttonWidth, height: 60 * unit),
                                    style: .danger, icon: .phoneDown, title: "ODMIETNUŤ", keyHint: "Esc")))
        items.append(.button(Button(control: .accept, frame: Rect(x: left + buttonWidth + gap, y: y, width: buttonWidth, height: 60 * unit),
                                    style: .primary, icon: .phone, title: "PRIJAŤ", keyHint: "Enter")))
    }

    private mutating func layOutCall(_ call: DisplayMachine.InCall) {
        let showing = call.picture == .showing
        background = showing ? .video(veil: 0) : .panel
        if call.picture == .none {
            let iconSize = 56 * unit
            let centerY = h * 0.32
            items.append(.icon(.house, Rect(x: w / 2 - iconSize / 2, y: centerY - iconSize / 2, width: iconSize, height: iconSize), .textDim))
            text("Bez obrazu", x: margin, y: centerY + iconSize / 2 + 12 * unit, width: w - 2 * margin, .title, .textDim, .center)
        }
        // Over the door's video, text carries a dark halo. (A full-width
        // bottom gradient, as on the phone, darkens a third of every frame:
        // 1.4–1.7 % of a core here even in C, half the display's budget.)
        items.append(.haloText(call.door.uppercased(), Rect(x: margin, y: margin, width: w * 0.6, height: lineHeight(.overline)),
                               font(.overline), .text, .leading))
        if call.muted {
            let pillHeight = lineHeight(.overline) + 12 * unit
            let pillWidth = 124 * unit
            let pill = Rect(x: w - margin - pillWidth, y: margin - 6 * unit, width: pillWidth, height: pillHeight)
            items.append(.fill(pill, .surface2, cornerRadius: pillHeight / 2))
            let iconSize = pillHeight - 10 * unit
            items.append(.icon(.micSlash, Rect(x: pill.x + 10 * unit, y: pill.y + 5 * unit, width: iconSize, height: iconSize), .danger))
            text("STLMENÉ", x: pill.x + 14 * unit + iconSize, y: pill.y + 6 * unit, width: pillWidth - 20 * unit - iconSize, .overline, .text)
        }

        let diameter = 56 * unit
        let captionTop = h - margin - lineHeight(.caption)
        let circleTop = captionTop - 6 * unit - diameter
        let spacing = 120 * unit
        let muteFrame = Rect(x: w / 2 - spacing / 2 - diameter / 2, y: circleTop, width: diameter, height: diameter)
        let hangupFrame = Rect(x: w / 2 + spacing / 2 - diameter / 2, y: circleTop, width: diameter, height: diameter)
        items.append(.button(Button(control: call.muted ? .unmute : .mute, frame: muteFrame, style: .round(active: call.muted),
                                    icon: call.muted ? .micSlash : .mic, caption: call.muted ? "zapnúť" : "stlmiť")))
        items.append(.button(Button(control: .hangup, frame: hangupFrame, style: .roundDanger, icon: .phoneDown,
                                    caption: "koniec")))

        let openWidth = min(w - 2 * margin, 560 * unit)
        let openFrame = Rect(x: (w - openWidth) / 2, y: circleTop - 24 * unit - 60 * unit, width: openWidth, height: 60 * unit)
        switch call.notice {
        case .none:
            items.append(.button(Button(control: .open, frame: openFrame, style: .primary, icon: .lockOpen, title: "OTVORIŤ DVERE")))
        case .unlocked:
            items.append(.button(Button(control: .open, frame: openFrame, style: .primary, icon: .lockOpen, title: "ODOMKNUTÉ")))
        case .failed:
            items.append(.button(Button(control: .open, frame: openFrame, style: .danger, icon: .lock, title: "DVERE SA NEOTVORILI")))
        }
    }

    private mutating func layOutEnded(door: String, reason: CallMachine.EndReason) {
        background = .panel
        let noConnection = reason == .noConnection
        text(door.uppercased(), x: margin, y: margin, width: w - 2 * margin, .overline, .textDim)
        let iconSize = 56 * unit
        let centerY = h * 0.38
        items.append(.icon(noConnection ? .house : .phoneDown,
                           Rect(x: w / 2 - iconSize / 2, y: centerY - iconSize / 2, width: iconSize, height: iconSize),
                           noConnection ? .textDim : .danger))
        var y = centerY + iconSize / 2 + 16 * unit
        text(noConnection ? "Bez pripojenia" : "Hovor ukončený", x: margin, y: y, width: w - 2 * margin, .display, .text, .center)
        y += lineHeight(.display) + 6 * unit
        text(Self.reasonText(reason), x: margin, y: y, width: w - 2 * margin, .body, .textDim, .center)
    }

    /// Why the call ended, in the display's words. A reason without words
    /// of its own shows as the `ended` event names it.
    static func reasonText(_ reason: CallMachine.EndReason) -> String {
        switch reason {
        case .hangup: return "Zavesili ste"
        case .rejected: return "Odmietnuté"
        case .remote: return "Dvere ukončili hovor"
        case .answeredElsewhere: return "Prijaté na inom zariadení"
        case .noConnection: return "Spojenie s dverami sa nepodarilo nadviazať"
        case .mediaFailed: return "Chyba zvuku alebo obrazu"
        case .shutdown: return "Aplikácia sa vypína"
        case .lost, .serverError: return reason.rawValue
        }
    }
}
