public import Arrival
import Foundation
public import Geo

/// A picture of a replayed walk, as SVG: the trace, the building, every candidate door by
/// source, where the walk's target changed, and where each prompt was spoken, with a legend.
///
/// Deterministic text (fixed decimals, no dates), so a committed map changes only when the
/// walk does.
public struct WalkMap: Sendable {
    public var destination: Destination
    /// The building's outline, if known.
    public var outline: [Coordinate]?
    public var result: Replayer.Result

    public init(destination: Destination, outline: [Coordinate]?, result: Replayer.Result) {
        self.destination = destination
        self.outline = outline
        self.result = result
    }

    static let mapSize = 760.0
    static let margin = 30.0
    static let legendWidth = 520.0

    /// The SVG document.
    public func svg() -> String {
        let lines = result.lines
        var doors: [Door] = []
        var rejected: [Door] = []
        var confirmed: [Door] = []
        var targets: [(t: Double, to: Coordinate, door: Door?)] = []
        var prompts: [(t: Double, text: String)] = []
        var callouts: [Double] = []
        for line in lines {
            switch line.effect {
            case .plan(let plan, _):
                for door in plan.doors where !doors.contains(where: { $0.coordinate == door.coordinate }) {
                    doors.append(door)
                }
                if targets.last?.to != plan.walkTo { targets.append((line.t, plan.walkTo, plan.entrance)) }
            case .log(.rejected(let door)): rejected.append(door)
            case .log(.confirmed(let door)): confirmed.append(door)
            case .say(let prompt):
                if prompt.isCallout { callouts.append(line.t) } else { prompts.append((line.t, prompt.text)) }
            default: break
            }
        }

        // Local metres around the centre, north up, scaled to fit everything drawn.
        let c = destination.center
        let metresPerDegree = Coordinate.earthRadiusMetres * .pi / 180
        func local(_ p: Coordinate) -> (x: Double, y: Double) {
            (
                (p.longitude - c.longitude) * cos(c.latitude * .pi / 180) * metresPerDegree,
                -(p.latitude - c.latitude) * metresPerDegree
            )
        }
        let all =
            result.track.map(\.coordinate) + doors.map(\.coordinate) + confirmed.map(\.coordinate)
            + (outline ?? []) + [c]
        let xs = all.map { local($0).x }
        let ys = all.map { local($0).y }
        let (minX, maxX, minY, maxY) = (xs.min()!, xs.max()!, ys.min()!, ys.max()!)
        let span = max(maxX - minX, maxY - minY, 50)
        let scale = (Self.mapSize - 2 * Self.margin) / span
        func xy(_ p: Coordinate) -> String {
            let l = local(p)
            let x = Self.margin + (l.x - minX) * scale + ((span - (maxX - minX)) * scale) / 2
            let y = Self.margin + (l.y - minY) * scale + ((span - (maxY - minY)) * scale) / 2
            return "\(f(x)),\(f(y))"
        }
        func point(_ p: Coordinate) -> (String, String) {
            let parts = xy(p).split(separator: ",")
            return (String(parts[0]), String(parts[1]))
        }
        func position(at t: Double) -> Coordinate? {
            result.track.last { $0.t <= t }?.coordinate ?? result.track.first?.coordinate
        }

        let width = Self.mapSize + Self.legendWidth
        var s = """
            <?xml version="1.0" encoding="UTF-8"?>
            <svg xmlns="http://www.w3.org/2000/svg" width="\(f(width))" height="\(f(Self.mapSize))" \
            viewBox="0 0 \(f(width)) \(f(Self.mapSize))" font-family="Noto Sans CJK KR, Noto Sans, DejaVu Sans, sans-serif">
            <rect width="100%" height="100%" fill="#fbfaf7"/>
            <rect x="0" y="0" width="\(f(Self.mapSize))" height="\(f(Self.mapSize))" fill="#f1efe9"/>

            """
        // Scale bar: a round number of metres near a fifth of the map.
        let barMetres = [10.0, 20, 50, 100, 200, 500, 1000].last { $0 * scale <= Self.mapSize / 4 } ?? 10
        s += """
            <g stroke="#333" stroke-width="2"><line x1="20" y1="\(f(Self.mapSize - 20))" x2="\(f(20 + barMetres * scale))" \
            y2="\(f(Self.mapSize - 20))"/></g>
            <text x="20" y="\(f(Self.mapSize - 28))" font-size="13" fill="#333">\(Int(barMetres)) m</text>
            <text x="\(f(Self.mapSize - 30))" y="30" font-size="16" fill="#333" text-anchor="middle">N ↑</text>

            """
        if let outline {
            s +=
                "<polygon points=\"\(outline.map(xy).joined(separator: " "))\" fill=\"#d9d3c7\" stroke=\"#8a8275\" stroke-width=\"2\"/>\n"
        }
        let (cx, cy) = point(c)
        s +=
            "<g stroke=\"#8a8275\" stroke-width=\"2\"><line x1=\"\(cx)\" y1=\"\(f(Double(cy)! - 6))\" x2=\"\(cx)\" y2=\"\(f(Double(cy)! + 6))\"/>"
        s +=
            "<line x1=\"\(f(Double(cx)! - 6))\" y1=\"\(cy)\" x2=\"\(f(Double(cx)! + 6))\" y2=\"\(cy)\"/></g>\n"

        // The trace: every fix joined, thin; accuracy is in the scatter itself.
        if !result.track.isEmpty {
            s +=
                "<polyline points=\"\(result.track.map { xy($0.coordinate) }.joined(separator: " "))\" fill=\"none\" stroke=\"#3b6ea8\" stroke-width=\"1.6\" stroke-opacity=\"0.75\"/>\n"
        }
        // Target changes: from where the walker was to the new target, dashed and numbered.
        for (i, target) in targets.enumerated() {
            guard let from = position(at: target.t) else { continue }
            let (x1, y1) = point(from)
            let (x2, y2) = point(target.to)
            s +=
                "<line x1=\"\(x1)\" y1=\"\(y1)\" x2=\"\(x2)\" y2=\"\(y2)\" stroke=\"#7a4fa3\" stroke-width=\"1.5\" stroke-dasharray=\"6 5\"/>\n"
            s +=
                "<circle cx=\"\(x1)\" cy=\"\(y1)\" r=\"9\" fill=\"#7a4fa3\"/><text x=\"\(x1)\" y=\"\(f(Double(y1)! + 4))\" font-size=\"11\" fill=\"#fff\" text-anchor=\"middle\">T\(i + 1)</text>\n"
        }
        // Doors by source; rejected ones crossed out, the confirmed one as a green star.
        for door in doors {
            let (x, y) = point(door.coordinate)
            let color =
                switch door.source {
                case .walker: "#2e8b57"
                case .companion: "#1f6fd1"
                default: "#e08a00"
                }
            s +=
                "<circle cx=\"\(x)\" cy=\"\(y)\" r=\"8\" fill=\"\(color)\" stroke=\"#fff\" stroke-width=\"2\"/>\n"
            if let label = door.label {
                s +=
                    "<text x=\"\(f(Double(x)! + 11))\" y=\"\(f(Double(y)! - 9))\" font-size=\"15\" font-weight=\"bold\" fill=\"#222\">\(escape(label))</text>\n"
            }
        }
        for door in rejected {
            let (x, y) = point(door.coordinate)
            let (dx, dy) = (Double(x)!, Double(y)!)
            s +=
                "<g stroke=\"#c62828\" stroke-width=\"3.5\"><line x1=\"\(f(dx - 9))\" y1=\"\(f(dy - 9))\" x2=\"\(f(dx + 9))\" y2=\"\(f(dy + 9))\"/><line x1=\"\(f(dx - 9))\" y1=\"\(f(dy + 9))\" x2=\"\(f(dx + 9))\" y2=\"\(f(dy - 9))\"/></g>\n"
        }
        for door in confirmed {
            let (x, y) = point(door.coordinate)
            s +=
                "<path d=\"\(star(Double(x)!, Double(y)!, 13))\" fill=\"#2e8b57\" stroke=\"#fff\" stroke-width=\"1.5\"/>\n"
        }
        // Prompts: callouts as small dots, the others numbered on the trace and in the legend.
        for t in callouts {
            if let p = position(at: t) {
                let (x, y) = point(p)
                s += "<circle cx=\"\(x)\" cy=\"\(y)\" r=\"2.6\" fill=\"#555\"/>\n"
            }
        }
        for (i, prompt) in prompts.enumerated() {
            guard let p = position(at: prompt.t) else { continue }
            let (x, y) = point(p)
            let dy = i.isMultiple(of: 2) ? -14.0 : 18.0
            s +=
                "<circle cx=\"\(x)\" cy=\"\(y)\" r=\"4\" fill=\"#111\"/><text x=\"\(f(Double(x)! - 14))\" y=\"\(f(Double(y)! + dy))\" font-size=\"12\" fill=\"#111\" font-weight=\"bold\">\(i + 1)</text>\n"
        }

        // Legend.
        let lx = Self.mapSize + 20
        var ly = 34.0
        func text(_ string: String, size: Double = 13, bold: Bool = false, x: Double = lx) {
            s +=
                "<text x=\"\(f(x))\" y=\"\(f(ly))\" font-size=\"\(f(size))\"\(bold ? " font-weight=\"bold\"" : "") fill=\"#222\">\(escape(string))</text>\n"
            ly += size + 7
        }
        text("\(destination.name) — 걸어온 길", size: 18, bold: true)
        let minutes = Int((result.track.last?.t ?? 0) / 60)
        text("\(result.track.count) GPS fixes, \(minutes) min; t = seconds from the start", size: 12)
        ly += 6
        let keys: [(String, String)] = [
            ("<polyline points=\"0,0 22,0\" stroke=\"#3b6ea8\" stroke-width=\"2\"/>", "walked (GPS trace)"),
            ("<circle cx=\"11\" cy=\"0\" r=\"7\" fill=\"#e08a00\"/>", "door from OpenStreetMap"),
            ("<circle cx=\"11\" cy=\"0\" r=\"7\" fill=\"#1f6fd1\"/>", "door named by the companion"),
            ("<path d=\"\(star(11, 0, 10))\" fill=\"#2e8b57\"/>", "door confirmed by the walker (여기가 입구야)"),
            (
                "<g stroke=\"#c62828\" stroke-width=\"3\"><line x1=\"4\" y1=\"-7\" x2=\"18\" y2=\"7\"/><line x1=\"4\" y1=\"7\" x2=\"18\" y2=\"-7\"/></g>",
                "door rejected (여기 아니야)"
            ),
            (
                "<g><line x1=\"0\" y1=\"0\" x2=\"22\" y2=\"0\" stroke=\"#7a4fa3\" stroke-dasharray=\"5 4\" stroke-width=\"2\"/><circle cx=\"4\" cy=\"0\" r=\"5\" fill=\"#7a4fa3\"/></g>",
                "target set or changed (T1, T2…)"
            ),
            ("<circle cx=\"11\" cy=\"0\" r=\"3\" fill=\"#555\"/>", "distance/direction callout spoken"),
            ("<circle cx=\"11\" cy=\"0\" r=\"4\" fill=\"#111\"/>", "other prompt spoken (numbered below)"),
            (
                "<polygon points=\"0,-7 22,-7 22,7 0,7\" fill=\"#d9d3c7\" stroke=\"#8a8275\"/>",
                "the building (OSM outline)"
            ),
        ]
        for (symbol, label) in keys {
            s += "<g transform=\"translate(\(f(lx)),\(f(ly - 4)))\">\(symbol)</g>\n"
            text(label, x: lx + 32)
        }
        ly += 8
        text("Prompts", size: 15, bold: true)
        for (i, prompt) in prompts.enumerated() {
            let clock = String(format: "%d:%02d", Int(prompt.t) / 60, Int(prompt.t) % 60)
            for (j, chunk) in wrap(prompt.text, width: 34).enumerated() {
                text(j == 0 ? "\(i + 1). \(clock)  \(chunk)" : chunk, size: 12, x: j == 0 ? lx : lx + 58)
            }
        }
        for (i, target) in targets.enumerated() {
            let what =
                target.door.map { "door \($0.label ?? "") (\($0.source?.rawValue ?? "?"))" }
                ?? "the building's centre"
            text("T\(i + 1) at \(Int(target.t)) s: walk to \(what)", size: 12)
        }
        s += "</svg>\n"
        return s
    }

    func f(_ v: Double) -> String { String(format: "%.1f", v) }

    func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }

    /// Lines of at most `width` characters, broken at spaces.
    func wrap(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        var current = ""
        for word in text.split(separator: " ") {
            if !current.isEmpty, current.count + 1 + word.count > width {
                lines.append(current)
                current = ""
            }
            current += (current.isEmpty ? "" : " ") + word
        }
        if !current.isEmpty { lines.append(current) }
        return lines
    }

    /// A five-pointed star's path around (x, y).
    func star(_ x: Double, _ y: Double, _ r: Double) -> String {
        (0..<10).map { i in
            let angle = Double(i) * .pi / 5 - .pi / 2
            let radius = i.isMultiple(of: 2) ? r : r * 0.45
            return (i == 0 ? "M" : "L") + "\(f(x + radius * cos(angle))),\(f(y + radius * sin(angle)))"
        }.joined() + "Z"
    }
}
