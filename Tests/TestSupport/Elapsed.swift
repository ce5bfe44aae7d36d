/// Elapsed time on the monotonic clock, the one way the tests measure a duration: a difference of two `Date()`s
/// follows every step of the wall clock, as the deadlines in `Poll` once did.
extension ContinuousClock.Instant {
    /// Seconds from this instant to now.
    public var secondsAgo: Double { (ContinuousClock.now - self).inSeconds }

    /// Seconds from `earlier` to this instant (negative when `earlier` is later).
    public func seconds(since earlier: ContinuousClock.Instant) -> Double { (self - earlier).inSeconds }
}

extension Duration {
    /// This duration in seconds.
    public var inSeconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
