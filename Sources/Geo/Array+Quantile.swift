extension Array where Element == Double {
    /// The value at fraction `p` (0…1) of this ascending, non-empty array: the element at index
    /// ⌊(count − 1) · p⌋, so `quantile(0.5)` of an even count is the lower middle and
    /// `quantile(1)` the largest. One rule for the listener's background level and every
    /// benchmark's percentiles.
    public func quantile(_ p: Double) -> Double {
        precondition(!isEmpty, "quantile of no values")
        return self[Int(Double(count - 1) * Swift.min(Swift.max(p, 0), 1))]
    }
}
