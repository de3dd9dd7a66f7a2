import Foundation

extension FinalApproach {
    /// The numbers that shape the walk, each with its reason. Defaults follow the design.
    public struct Settings: Sendable, Hashable, Codable {
        /// The last stretch begins this far (metres) from the door: close enough that the
        /// building is in sight, far enough to pick a side of it. The one default for the
        /// daemon (`lastStretchMetres`), `replay` and `demo` (`--last-stretch-metres`).
        public var lastStretchMetres = 300.0
        /// The distances (metres) `lastStretchMetres` may be set to: nearer than 5 m the door
        /// is reached before the stretch is said; beyond 1 km it is no last stretch.
        public static let lastStretchRange = 5.0...1000.0
        /// Arrival radius floor (metres): a good fix is still ±5–10 m at a façade.
        public var arrivalMinimumMetres = 12.0
        /// The horizontal accuracy used to widen the arrival radius is capped (metres), so a
        /// very bad fix never "arrives" a block away.
        public var arrivalAccuracyCapMetres = 25.0
        /// Arrival is left only beyond this multiple of its radius, so GPS jitter at the door
        /// does not announce arrival twice.
        public var arrivalLeaveFactor = 2.0
        /// An arrival without a door this soon (seconds) after "다른 입구는 모르겠어. 입구를 찾으면
        /// …" is not announced: that sentence asked the same (audit 13 A13-4). Longer than the
        /// door index's answer takes in replay (3 s), which the walls' arrival waits for.
        public var noDoorLeftQuietSeconds = 10.0
        /// Callouts on progress come every this fraction of the distance left…
        public var calloutProgressFraction = 0.25
        /// …but no closer together than this (metres), which is about GPS noise…
        public var calloutMinimumStepMetres = 10.0
        /// …and no further apart than this (metres), so a long stretch is not silent.
        public var calloutMaximumStepMetres = 25.0
        /// A change of direction this many clock hours is said at once: the walker turned.
        public var calloutTurnHours = 2
        /// With nothing new, the guidance is repeated after this long (seconds) so the walker
        /// knows the device is still with them.
        public var calloutQuietSeconds = 15.0
        /// Outside the last stretch one distance/direction callout this often (seconds):
        /// the walker is on the way, not at the door.
        public var farCalloutSeconds = 60.0
        /// Faster than this (m/s) the course over ground is the walker's heading; slower, GPS
        /// course is noise.
        public var movingSpeed = 0.5
        /// Faster than this (m/s) is not on foot (a brisk walk is 2, a jog under 3): a car's or
        /// bus's course is not kept as the walker's heading, since out of it they face anywhere.
        public var walkingSpeedMaximum = 3.0
        /// A course walked stays the walker's heading this long (seconds) after the last fix at
        /// walking speed: someone who stops (a crossing, a look around) still faces the way they
        /// walked for a few seconds; later they may have turned, and a clock hour from the old
        /// course would send them the wrong way, so the compass word is said instead.
        public var headingMemorySeconds = 10.0
        /// Horizontal accuracy worse than this (metres) is said: guidance is then unreliable.
        public var poorAccuracyMetres = 20.0
        /// …but only this often (seconds), so it informs without nagging.
        public var poorAccuracyRepeatSeconds = 60.0
        /// No fix for this long (seconds) is said: long enough to cross under a bridge quietly.
        public var noFixSeconds = 20.0
        /// A late OSM answer may change the leading door only while the walker is further than
        /// this (metres) from it; nearer, turning away would confuse more than help.
        public var lateDoorsMinimumMetres = 50.0
        /// After "여기가 입구야" the walk ends this long after (seconds), so the answer is heard.
        public var endDelaySeconds = 3.0
        /// The answer window lasts this long (seconds) after the walker has heard the arrival
        /// question to its end (and "다시 한 번 말해줘", and each repeat of them), and is open
        /// while they are said: the walker answers then, so a middling answer is worth asking
        /// about; elsewhere in the last stretch only a sure answer acts, so chatter passing by
        /// cannot move a door.
        public var answerWindowSeconds = 20.0
        /// After "다시 한 번 말해줘" a middling answer acts only if the next answer, within this
        /// long (seconds) of the walker hearing that prompt to its end, means the same: a repeat
        /// takes about 2 s, and the walker may hesitate first.
        public var repeatSeconds = 8.0
        /// The same meaning heard again within this long (seconds) of acting on it is the same
        /// answer said twice, not an answer about the next door: walkers repeat themselves.
        public var sameAnswerSeconds = 5.0

        public init() {}

        /// The arrival radius (metres) for a fix of `horizontalAccuracy` metres.
        public func arrivalRadius(horizontalAccuracy: Double?) -> Double {
            max(arrivalMinimumMetres, min(horizontalAccuracy ?? 0, arrivalAccuracyCapMetres))
        }

        /// The progress (metres) that earns a new callout `metres` from the target.
        public func calloutStep(metres: Double) -> Double {
            min(calloutMaximumStepMetres, max(calloutMinimumStepMetres, metres * calloutProgressFraction))
        }
    }
}
