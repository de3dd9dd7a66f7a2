import Arrival
import Foundation
import Geo
import Testing

@Suite("Guidance")
struct GuidanceTests {
    @Test(
        arguments: [
            (3.0, nil, Guidance.Distance.rightHere),
            (15.0, nil, .rightHere),
            // A distance said as fifteen metres is "바로 앞" as 15 m itself is (before: 15.1…17.4 m
            // was "십오 미터", one distance in two words).
            (15.1, nil, .rightHere),
            (16.2, 3.0, .rightHere),
            (17.4, 30.0, .rightHere),
            (17.5, nil, .metres(20, approximate: false)),
            (31.0, 5.0, .metres(30, approximate: false)),
            (32.6, 10.0, .metres(35, approximate: false)),
            (32.6, 10.1, .metres(35, approximate: true)),
            (97.4, nil, .metres(95, approximate: false)),
            (104.0, nil, .metres(100, approximate: false)),
            (256.0, 30.0, .metres(260, approximate: true)),
        ] as [(Double, Double?, Guidance.Distance)])
    func distanceRounding(metres: Double, accuracy: Double?, expected: Guidance.Distance) {
        #expect(Guidance.distance(metres, horizontalAccuracy: accuracy) == expected)
    }

    @Test(arguments: [
        (0.0, 0.0, 12), (60.0, 0.0, 2), (90.0, 0.0, 3), (180.0, 0.0, 6), (270.0, 0.0, 9),
        (10.0, 350.0, 1), (350.0, 10.0, 11), (14.0, 0.0, 12), (16.0, 0.0, 1), (100.0, 280.0, 6),
    ])
    func clockHour(bearing: Double, heading: Double, hour: Int) {
        #expect(Guidance.clockHour(bearing: bearing, heading: heading) == hour)
    }

    @Test func compassAndHoursApart() {
        #expect(Guidance.compassPoint(bearing: 0) == 0)
        #expect(Guidance.compassPoint(bearing: 350) == 0)
        #expect(Guidance.compassPoint(bearing: 44) == 1)
        #expect(Guidance.compassPoint(bearing: 180) == 4)
        #expect(Guidance.compassPoint(bearing: 300) == 7)
        #expect(Guidance.hoursApart(12, 1) == 1)
        #expect(Guidance.hoursApart(11, 2) == 3)
        #expect(Guidance.hoursApart(3, 9) == 6)
    }

    @Test func arrivalRadius() {
        let s = FinalApproach.Settings()
        #expect(s.arrivalRadius(horizontalAccuracy: nil) == 12)
        #expect(s.arrivalRadius(horizontalAccuracy: 5) == 12)
        #expect(s.arrivalRadius(horizontalAccuracy: 18) == 18)
        #expect(s.arrivalRadius(horizontalAccuracy: 60) == 25)
    }

    @Test func promptQueue_replacesAnUnspokenCalloutOnly() {
        var q = PromptQueue()
        q.enqueue(.init("입구까지 오십 미터", isCallout: true), at: 0)
        q.enqueue(.init(Prompts.noFix), at: 0)
        q.enqueue(.init("입구까지 사십 미터", isCallout: true), at: 1)
        #expect(q.waiting.map(\.text) == [Prompts.noFix, "입구까지 사십 미터"])
        #expect(q.next(at: 2)?.text == Prompts.noFix)
        #expect(q.next(at: 2)?.isCallout == true)
        #expect(q.next(at: 2) == nil)
    }
}

@Suite("FinalApproach callouts")
struct CalloutTests {
    /// Guidance callouts said in the last stretch.
    func callouts(_ sim: WalkSimulator) -> [(time: Date, text: String)] {
        sim.effects.compactMap {
            if case .say(let p) = $0.effect, p.isCallout, p.text.hasPrefix("입구") {
                ($0.time, p.text)
            } else {
                nil
            }
        }
    }

    @Test func progressCallouts_areSpacedTenTo25Metres() {
        var sim = WalkSimulator(from: Scene.doorA.coordinate.offset(metres: 280, bearing: 200))
        sim.noise = 0.5
        sim.send(.go(Destination(name: "Rautatieasema", center: Scene.center, door: Scene.doorA)))
        sim.walk(to: Scene.doorA.coordinate)
        let times = callouts(sim).map(\.time)
        #expect(times.count >= 12 && times.count <= 28, "\(times.count) callouts over 280 m")
        for (a, b) in zip(times, times.dropFirst()) {
            let metres = b.timeIntervalSince(a) * sim.pace
            #expect(metres >= 10 - 1.5 && metres <= 25 + 1.5, "gap \(metres) m")
        }
    }

    @Test func standingStill_repeatsAfter15Seconds() {
        var sim = WalkSimulator(from: Scene.doorA.coordinate.offset(metres: 100, bearing: 180))
        sim.noise = 0
        sim.send(.go(Destination(name: "Rautatieasema", center: Scene.center, door: Scene.doorA)))
        sim.wait(46)
        let times = callouts(sim).map { $0.time.timeIntervalSince(sim.start) }
        #expect(times == [1, 16, 31, 46])
        // No heading known while standing still: a compass word.
        #expect(callouts(sim).first?.text.hasSuffix("북쪽 방향") == true)
    }

    @Test func aTurnOfTwoHours_isSaidAtOnce() throws {
        var sim = WalkSimulator(from: Scene.doorA.coordinate.offset(metres: 100, bearing: 180))
        sim.noise = 0
        sim.send(.go(Destination(name: "Rautatieasema", center: Scene.center, door: Scene.doorA)))
        sim.walk(to: Scene.doorA.coordinate.offset(metres: 96, bearing: 180))  // heading north: 12 o'clock
        let before = callouts(sim).count
        // Walk east for two seconds: the door is now at about 9 o'clock.
        sim.walk(to: sim.here.offset(metres: 2.6, bearing: 90))
        let after = callouts(sim)
        #expect(after.count == before + 1)
        #expect(after.last.map { $0.time.timeIntervalSince(sim.start) } == 5)
    }

    @Test func arrivalHysteresis_arrivesOnceUntilTwiceTheRadiusAway() {
        var sim = WalkSimulator(from: Scene.doorA.coordinate.offset(metres: 60, bearing: 180))
        sim.noise = 0
        sim.send(.go(Destination(name: "Rautatieasema", center: Scene.center, door: Scene.doorA)))
        sim.walk(to: Scene.doorA.coordinate.offset(metres: 11, bearing: 180))
        #expect(sim.arrivals == 1)
        sim.walk(to: Scene.doorA.coordinate.offset(metres: 23, bearing: 180))  // within 24 m
        sim.walk(to: Scene.doorA.coordinate.offset(metres: 5, bearing: 180))
        #expect(sim.arrivals == 1)
        sim.walk(to: Scene.doorA.coordinate.offset(metres: 26, bearing: 180))  // beyond 24 m: left
        sim.walk(to: Scene.doorA.coordinate)
        #expect(sim.arrivals == 2)
    }
}

@Suite("Prompts")
struct PromptsTests {
    @Test func guidanceSentences_speakNumbersInKorean() {
        #expect(
            Prompts.guidance(to: .door, .metres(30, approximate: false), .clock(2)) == "입구까지 삼십 미터, 두 시 방향"
        )
        #expect(
            Prompts.guidance(to: .door, .metres(120, approximate: true), .clock(12))
                == "입구까지 약 백이십 미터, 열두 시 방향")
        #expect(Prompts.guidance(to: .door, .rightHere, .clock(11)) == "입구가 바로 앞이야, 열한 시 방향")
        // Before: "건물 중앙가" (중앙 ends in a consonant).
        #expect(Prompts.guidance(to: .centre, .rightHere, .clock(12)) == "건물 중앙이 바로 앞이야, 열두 시 방향")
        #expect(
            Prompts.guidance(to: .centre, .metres(45, approximate: false), .compass(1))
                == "건물 중앙까지 사십오 미터, 북동쪽 방향")
        // To the walls of a building whose door is unknown (건물 ends in a consonant: 이).
        #expect(Prompts.guidance(to: .walls, .rightHere, .clock(9)) == "건물이 바로 앞이야, 아홉 시 방향")
        #expect(
            Prompts.guidance(to: .walls, .metres(20, approximate: false), .clock(3)) == "건물까지 이십 미터, 세 시 방향")
        #expect(Prompts.poorAccuracy(31.4) == "GPS가 부정확해. 오차가 약 삼십일 미터야.")
    }

    @Test func doorDetails_areSpokenAsTheyAre() {
        let door = Door(coordinate: Scene.center, level: "-1", note: "2층 출발 홀", label: "B")
        #expect(Prompts.arrived(at: door).hasPrefix("입구에 도착했어. B 입구. 층 표시 마이너스 일. 이 층 출발 홀."))
        #expect(
            Prompts.lastStretch("Kamppi", door: Door(coordinate: Scene.center))
                == "Kamppi에 거의 다 왔어. 입구로 안내할게.")
        #expect(Prompts.nextDoor(door).hasPrefix("다른 입구로 안내할게."))
        #expect(Prompts.noDoorLeft == "다른 입구는 모르겠어. 입구를 찾으면 여기가 입구야라고 말해줘.")
        #expect(Prompts.remembered == "기억할게. 다음엔 여기로 안내할게.")
        #expect(Prompts.rememberedLater == "이제 입구를 기억했어.")
    }

    /// A door without a label is no sentence of its own (before: "다른 입구로 안내할게. 입구." and
    /// "입구에 도착했어. 입구. 맞으면 …", a stray word).
    @Test func anUnlabelledDoor_isNoStraySentence() {
        let plain = Door(coordinate: Scene.center)
        #expect(Prompts.nextDoor(plain) == "다른 입구로 안내할게.")
        #expect(Prompts.arrived(at: plain) == "입구에 도착했어. 맞으면 여기가 입구야, 아니면 여기 아니야라고 말해줘.")
        let noted = Door(coordinate: Scene.center, level: "0", note: "2층 출발 홀")
        #expect(Prompts.nextDoor(noted) == "다른 입구로 안내할게. 층 표시 영. 이 층 출발 홀.")
        #expect(
            Prompts.arrived(at: noted)
                == "입구에 도착했어. 층 표시 영. 이 층 출발 홀. 맞으면 여기가 입구야, 아니면 여기 아니야라고 말해줘.")
        #expect(Prompts.doorChanged(plain) == "지도에서 입구를 찾았어. 입구로 바꿔서 안내할게.")
    }

    /// OSM's "1;2" (a door on levels 1 and 2) is said as the levels it names, not "일;이", which
    /// espeak-ng reads as one run of numbers.
    @Test(arguments: [
        ("1;2", " 층 표시 일 또는 이."), ("-1;0", " 층 표시 마이너스 일 또는 영."), ("0", " 층 표시 영."),
        ("1; 2;3", " 층 표시 일 또는 이 또는 삼."),
    ])
    func levelsSeparatedBySemicolons_areSaidAsOneOrTheOther(level: String, said: String) {
        let door = Door(coordinate: Scene.center, level: level, label: "A")
        #expect(Prompts.nextDoor(door) == "다른 입구로 안내할게. A 입구." + said)
    }
}
