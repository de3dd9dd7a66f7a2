import Arrival
import Testing

/// The speaking queue: bounded, coalescing, interruptible, never late with a callout.
@Suite struct PromptQueueTests {
    @Test func threeHundredRepeatsWaitAsOne() {
        var q = PromptQueue()
        var dropped: [PromptQueue.Dropped] = []
        for i in 0..<300 { dropped += q.enqueue(.init(Prompts.start("Rautatieasema")), at: Double(i) / 100) }
        #expect(q.waiting.map(\.text) == [Prompts.start("Rautatieasema")])
        #expect(dropped.count == 299)
        #expect(q.next(at: 3)?.text == Prompts.start("Rautatieasema"))
        // Once spoken (out of the queue), the same text may be queued again.
        q.enqueue(.init(Prompts.start("Rautatieasema")), at: 4)
        #expect(q.waiting.count == 1)
    }

    @Test func theQueueIsBoundedAndLosesTheOldestFirst() {
        var q = PromptQueue()
        var dropped: [PromptQueue.Dropped] = []
        for i in 0..<(PromptQueue.capacity + 3) { dropped += q.enqueue(.init("prompt \(i)"), at: 0) }
        #expect(q.waiting.count == PromptQueue.capacity)
        #expect(q.waiting.first?.text == "prompt 3")
        #expect(q.waiting.last?.text == "prompt \(PromptQueue.capacity + 2)")
        #expect(dropped == (0..<3).map { .overflow(.init("prompt \($0)")) })
    }

    @Test func aFullQueueLosesItsCalloutBeforeAnythingElse() {
        var q = PromptQueue()
        q.enqueue(.init(Prompts.noFix), at: 0)
        q.enqueue(.init("입구까지 사십 미터", isCallout: true), at: 0)
        for i in 2..<PromptQueue.capacity { q.enqueue(.init("prompt \(i)"), at: 0) }
        let dropped = q.enqueue(.init(Prompts.remembered), at: 0)
        #expect(dropped == [.overflow(.init("입구까지 사십 미터", isCallout: true))])
        #expect(q.waiting.first?.text == Prompts.noFix)
        #expect(q.waiting.last?.text == Prompts.remembered)
    }

    @Test func stopDropsEverythingWaitingAndSpeaksItsOwnPromptNext() {
        var q = PromptQueue()
        for i in 0..<5 { q.enqueue(.init("prompt \(i)"), at: 0) }
        let dropped = q.interrupt(with: .init(Prompts.stopped), at: 1)
        #expect(dropped.count == 5)
        #expect(q.next(at: 1)?.text == Prompts.stopped)
        #expect(q.next(at: 1) == nil)
    }

    @Test func aCalloutOlderThanTenSecondsIsDroppedNotSpokenLate() {
        var q = PromptQueue()
        q.enqueue(.init("입구까지 사십 미터", isCallout: true), at: 100)
        q.enqueue(.init(Prompts.noFix), at: 101)
        var dropped: [PromptQueue.Dropped] = []
        #expect(q.next(at: 110.5, dropped: &dropped)?.text == Prompts.noFix)
        #expect(dropped == [.stale(.init("입구까지 사십 미터", isCallout: true))])
        // Within ten seconds it is still spoken; a prompt that is no callout never goes stale.
        q.enqueue(.init("입구까지 삼십 미터", isCallout: true), at: 200)
        q.enqueue(.init(Prompts.fixBack), at: 200)
        #expect(q.next(at: 209.9)?.text == "입구까지 삼십 미터")
        #expect(q.next(at: 500)?.text == Prompts.fixBack)
    }

    /// A fresh callout with the words of the one waiting stands in for it, queued now (before:
    /// dropped as a duplicate, and the older one then dropped as stale, so the walker standing
    /// still heard no guidance at all), as any newer callout replaces the one waiting.
    @Test func aFreshCalloutLikeTheWaitingOne_isSpokenNotDroppedTwice() {
        var q = PromptQueue()
        q.enqueue(.init(Prompts.start("Rautatieasema")), at: 0)
        q.enqueue(.init("입구까지 삼십 미터", isCallout: true), at: 0)
        q.enqueue(.init(Prompts.fixBack), at: 1)
        let dropped = q.enqueue(.init("입구까지 삼십 미터", isCallout: true), at: 9)
        #expect(dropped == [.replaced(.init("입구까지 삼십 미터", isCallout: true))])
        var stale: [PromptQueue.Dropped] = []
        #expect(q.next(at: 12, dropped: &stale)?.text == Prompts.start("Rautatieasema"))
        #expect(q.next(at: 12, dropped: &stale)?.text == Prompts.fixBack)
        #expect(q.next(at: 12, dropped: &stale)?.text == "입구까지 삼십 미터")
        #expect(stale.isEmpty)
        // Any other prompt is still not queued twice.
        q.enqueue(.init(Prompts.noFix), at: 20)
        #expect(q.enqueue(.init(Prompts.noFix), at: 21) == [.duplicate(.init(Prompts.noFix))])
    }

    /// `repeat` (no callout) of the callout still waiting is said, however long it waits: the
    /// walker asked for it (audit 6, R1-6). Before, the repeat was dropped as a duplicate of
    /// the waiting callout, which then went stale behind a long prompt, so nothing was said.
    @Test func aRepeatOfTheWaitingCallout_isSaidEvenAfterTenSeconds() {
        var q = PromptQueue()
        q.enqueue(.init(Prompts.start("Rautatieasema")), at: 0)
        q.enqueue(.init("입구까지 삼십 미터", isCallout: true), at: 0)
        // Queued once: the repeat ends with its twin, which no longer ages out.
        #expect(q.enqueue(.init("입구까지 삼십 미터"), at: 5) == [.duplicate(.init("입구까지 삼십 미터"))])
        #expect(q.waiting.map(\.text) == [Prompts.start("Rautatieasema"), "입구까지 삼십 미터"])
        var stale: [PromptQueue.Dropped] = []
        #expect(q.next(at: 12, dropped: &stale)?.text == Prompts.start("Rautatieasema"))
        #expect(q.next(at: 30, dropped: &stale) == .init("입구까지 삼십 미터"))
        #expect(stale.isEmpty)
        // A fresh callout later still replaces only callouts: one waiting like the repeat is
        // not queued twice, the repeat is not replaced.
        q.enqueue(.init("입구까지 이십 미터", isCallout: true), at: 40)
        q.enqueue(.init("입구까지 이십 미터"), at: 41)
        #expect(
            q.enqueue(.init("입구까지 이십 미터", isCallout: true), at: 42) == [
                .duplicate(.init("입구까지 이십 미터", isCallout: true))
            ])
        #expect(q.next(at: 60) == .init("입구까지 이십 미터"))
        #expect(q.next(at: 60) == nil)
    }
}
