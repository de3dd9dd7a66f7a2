/// A shorter form of an address, searched when the query as written matches nothing
/// (``DoorIndexes/shorterForms(_:)``), and what it must still hold to.
public struct AddressForm: Sendable, Hashable {
    /// The form as searched ("Kaivokatu 10").
    public var text: String
    /// The house letter written after the number was dropped ("Keskuskatu 1A" → "Keskuskatu
    /// 1"): the number then matches only bare, or a range holding it, never another letter's
    /// house (1A and 1B are different plots; before, "Keskuskatu 1A" found Keskuskatu 1b).
    public var bareNumber = false
    /// The range written when the number is one of its ends ("Iso Roobertinkatu 1-3" →
    /// "Iso Roobertinkatu 3", 1...3): the number matches alone, or in a range holding all of
    /// the one written (1-5), never another range that shares an end (the lot 3-5 is not the
    /// lot 1-3; before, audit 15, it was found, and `go` walked there).
    public var numberRange: ClosedRange<Int>?
    /// The words of the address (commas and parentheses aside) that the form leaves out, as
    /// written: a region, city or postcode among them ("Tampere", "00100", "서울특별시", "중구")
    /// may say where the address is, and `go` prefers the form's matches lying there.
    public var dropped: [String] = []

    public init(
        text: String, bareNumber: Bool = false, numberRange: ClosedRange<Int>? = nil, dropped: [String] = []
    ) {
        self.text = text
        self.bareNumber = bareNumber
        self.numberRange = numberRange
        self.dropped = dropped
    }
}
