/// Every sentence Pathfinder says, in Korean, in the casual register the walker uses
/// ("여기 아니야"), with numbers through the Korean number words.
///
/// Names of places are spoken as given; no particle follows a name, so no batchim rule is
/// needed for foreign names ("Rautatieasema").
public enum Prompts {
    // MARK: Starting and the far part of the walk

    /// On `go`.
    public static func start(_ name: String) -> String {
        "안내를 시작할게. 목적지는 \(name)."
    }

    /// On a walk resumed after the daemon restarted during it.
    public static func resumed(_ name: String) -> String {
        "안내를 다시 시작할게. 목적지는 \(name)."
    }

    /// The sparse callout outside the last stretch.
    public static func far(
        _ name: String, _ distance: Guidance.Distance, _ direction: Guidance.Direction?
    )
        -> String
    {
        "\(name)까지 \(say(distance))\(say(direction))"
    }

    /// Entering the last stretch: the building and the door; with no door, to the building's
    /// walls (`toWalls`: its outline is known) or its centre.
    public static func lastStretch(_ name: String, door: Door?, toWalls: Bool = false) -> String {
        guard let door else {
            return "\(name)에 거의 다 왔어. \(toWalls ? ledToWalls : "아는 입구가 없어서 건물 중앙으로 안내할게.")"
        }
        return "\(name)에 거의 다 왔어. \(entrance(door))로 안내할게.\(details(door))"
    }

    /// The last stretch's promise for a building without a door whose outline is known; said
    /// alone when OSM's answer brought the outline after the walk had promised the centre.
    public static let ledToWalls = "아는 입구가 없어서 건물까지 안내할게."

    // MARK: Guidance

    /// What the guidance leads to.
    public enum Goal: Sendable, Hashable {
        /// The door.
        case door
        /// The nearest point of the building's walls: no door is known, its outline is.
        case walls
        /// The building's centre: neither a door nor its outline is known.
        case centre
    }

    /// "입구까지 삼십 미터, 두 시 방향"; "건물까지 …" to the walls, "건물 중앙까지 …" to the centre.
    public static func guidance(
        to goal: Goal, _ distance: Guidance.Distance, _ direction: Guidance.Direction?
    ) -> String {
        let target =
            switch goal {
            case .door: "입구"
            case .walls: "건물"
            case .centre: "건물 중앙"
            }
        // 입구 ends in a vowel (가), 건물 and 중앙 in a consonant (이): "건물 중앙가" was said before.
        if case .rightHere = distance {
            return "\(target)\(goal == .door ? "가" : "이") 바로 앞이야\(say(direction))"
        }
        return "\(target)까지 \(say(distance))\(say(direction))"
    }

    // MARK: Arrival and level

    /// At the door: its label, level and note, and how to answer.
    public static func arrived(at door: Door) -> String {
        "입구에 도착했어.\(labelSentence(door))\(details(door)) 맞으면 여기가 입구야, 아니면 여기 아니야라고 말해줘."
    }

    /// At the centre, no door known.
    public static let arrivedAtCenter = "건물 중앙에 도착했어. 아는 입구가 없어. 입구를 찾으면 여기가 입구야라고 말해줘."

    /// At the building's walls, no door known (a walk to a building by its outline).
    public static let arrivedAtBuilding = "건물에 도착했어. 아는 입구가 없어. 입구를 찾으면 여기가 입구야라고 말해줘."

    /// The level check's answer.
    public static func level(_ check: LevelCheck) -> String {
        switch check {
        case .same: "입구는 지금 있는 층이야."
        case .above: "입구는 지금보다 위에 있어."
        case .below: "입구는 지금보다 아래에 있어."
        }
    }

    /// After "위에/아래에 있어": the walker's altitude now agrees with the door's (the answer
    /// "same" would be, said as a level reached).
    public static let levelReached = "이제 입구가 있는 층이야."

    // MARK: The two answers

    /// "여기 아니야" with another door left.
    public static func nextDoor(_ door: Door) -> String {
        "다른 입구로 안내할게.\(labelSentence(door))\(details(door))"
    }

    /// "여기 아니야" with no door left.
    public static let noDoorLeft = "다른 입구는 모르겠어. 입구를 찾으면 여기가 입구야라고 말해줘."

    /// A middling answer in the answer window: heard, not sure enough to act on.
    public static let sayAgain = "다시 한 번 말해줘."

    /// "여기가 입구야", stored: said only once the memory is written.
    public static let remembered = "기억할게. 다음엔 여기로 안내할게."

    /// "여기가 입구야", but the memory could not be written.
    public static let notRemembered = "입구를 기억하지 못했어."

    /// After ``notRemembered``: the write succeeded later after all (the daemon writes a failed
    /// change again by itself), within ``FinalApproach/lateRememberedSeconds`` of the failure.
    public static let rememberedLater = "이제 입구를 기억했어."

    /// "여기가 입구야" with no position to store.
    public static let cannotRemember = "지금 위치를 몰라서 기억하지 못했어. 잠시 후에 다시 말해줘."

    // MARK: Changes and trouble

    /// A late answer from the map changed the door.
    public static func doorChanged(_ door: Door) -> String {
        "지도에서 입구를 찾았어. \(entrance(door))로 바꿔서 안내할게.\(details(door))"
    }

    /// Horizontal accuracy worse than the limit.
    public static func poorAccuracy(_ metres: Double) -> String {
        "GPS가 부정확해. 오차가 약 \(KoreanNumbers.metres(Int(metres.rounded())))야."
    }

    /// No fix for a while, after one came in this walk.
    public static let noFix = "GPS 신호가 끊겼어. 신호를 찾는 중이야."

    /// No fix for a while, and none yet in this walk (gpsd not running, a receiver starting
    /// cold): no signal was lost, it is awaited.
    public static let waitingForGPS = "GPS를 기다리는 중이야."

    /// A fix again after ``noFix``.
    public static let fixBack = "GPS 신호가 다시 잡혔어."

    /// On `stop`.
    public static let stopped = "안내를 멈출게."

    // MARK: Pieces

    /// "A 입구" or "입구".
    static func entrance(_ door: Door) -> String {
        door.label.map { "\($0) 입구" } ?? "입구"
    }

    /// " A 입구." for a labelled door; "" for one without a label, which is just "입구", said
    /// already (before: "다른 입구로 안내할게. 입구.", a stray word as a sentence).
    static func labelSentence(_ door: Door) -> String {
        door.label == nil ? "" : " \(entrance(door))."
    }

    /// " 층 표시 영. 이 층 출발 홀." — level and note spoken as they are (their digits read
    /// in Hangul: OSM's level is a label, not a floor count to convert), or "". OSM's levels
    /// separated by ";" (a door on levels 1 and 2: "1;2") are said one "또는" the other (before:
    /// "일;이", which espeak-ng reads as one run of numbers).
    static func details(_ door: Door) -> String {
        var text = ""
        if let level = door.level {
            let levels = level.split(separator: ";").map { String($0.filter { $0 != " " }) }
                .filter { !$0.isEmpty }
            let said = levels.isEmpty ? level : levels.joined(separator: " 또는 ")
            text += " 층 표시 \(KoreanNumbers.spokenForm(of: said))."
        }
        if let note = door.note { text += " \(KoreanNumbers.spokenForm(of: note))." }
        return text
    }

    static func say(_ distance: Guidance.Distance) -> String {
        switch distance {
        case .rightHere: "바로 앞"
        case .metres(let m, let approximate): (approximate ? "약 " : "") + KoreanNumbers.metres(m)
        }
    }

    static func say(_ direction: Guidance.Direction?) -> String {
        switch direction {
        case nil: ""
        case .clock(let hour): ", " + KoreanNumbers.clockDirection(hour)
        case .compass(let point): ", " + compassWords[point] + " 방향"
        }
    }

    /// The 8 compass points, clockwise from north.
    static let compassWords = ["북쪽", "북동쪽", "동쪽", "남동쪽", "남쪽", "남서쪽", "서쪽", "북서쪽"]
}
