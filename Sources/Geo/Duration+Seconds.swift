extension Duration {
    /// The duration in seconds, as a `Double` (attoseconds included): what logs, timing reports
    /// and clocks built on `ContinuousClock` print and add.
    public var inSeconds: Double {
        Double(components.seconds) + Double(components.attoseconds) * 1e-18
    }
}
