import Synchronization

/// A lock-free single-producer, single-consumer ring of `Float` samples between the capture callback and
/// the thread that delivers buffers.
///
/// The producer never waits: when the ring is full the incoming samples are dropped whole and counted in
/// `droppedSamples`. Positions are running totals; the ring's capacity is a power of two.
final class SampleRing: @unchecked Sendable {
    let capacity: Int
    private let mask: Int
    private let storage: UnsafeMutablePointer<Float>
    /// Samples written so far (producer-owned, read by the consumer).
    private let written = Atomic<Int>(0)
    /// Samples read so far (consumer-owned, read by the producer).
    private let read = Atomic<Int>(0)
    private let dropped = Atomic<Int>(0)

    /// A ring holding at least `minimumCapacity` samples.
    init(minimumCapacity: Int) {
        var capacity = 1
        while capacity < max(minimumCapacity, 2) { capacity <<= 1 }
        self.capacity = capacity
        mask = capacity - 1
        storage = .allocate(capacity: capacity)
        storage.initialize(repeating: 0, count: capacity)
    }

    deinit {
        storage.deallocate()
    }

    /// Samples dropped because the ring was full.
    var droppedSamples: Int { dropped.load(ordering: .relaxed) }

    /// Producer: appends `count` samples from `source`, or `count` zeros when `source` is nil (a hole).
    /// Returns false, and drops the samples, when they do not fit.
    @discardableResult
    func write(_ source: UnsafePointer<Float>?, count: Int) -> Bool {
        guard count > 0 else { return true }
        let head = written.load(ordering: .relaxed)
        let tail = read.load(ordering: .acquiring)
        guard capacity - (head - tail) >= count else {
            dropped.add(count, ordering: .relaxed)
            return false
        }
        let start = head & mask
        let first = min(count, capacity - start)
        if let source {
            (storage + start).update(from: source, count: first)
            if first < count { storage.update(from: source + first, count: count - first) }
        } else {
            (storage + start).update(repeating: 0, count: first)
            if first < count { storage.update(repeating: 0, count: count - first) }
        }
        written.store(head + count, ordering: .releasing)
        return true
    }

    /// Samples written since the ring was made (dropped ones not counted): grows whenever the producer delivers.
    var writtenSamples: Int { written.load(ordering: .acquiring) }

    /// Consumer: samples waiting to be read.
    var available: Int {
        written.load(ordering: .acquiring) - read.load(ordering: .relaxed)
    }

    /// Consumer: removes and returns up to `maximum` samples, oldest first, rounded down to a multiple of `granule`.
    func read(maximum: Int, granule: Int = 1) -> [Float] {
        let tail = read.load(ordering: .relaxed)
        let head = written.load(ordering: .acquiring)
        var count = min(maximum, head - tail)
        count -= count % max(granule, 1)
        guard count > 0 else { return [] }
        let start = tail & mask
        let first = min(count, capacity - start)
        let samples = [Float](unsafeUninitializedCapacity: count) { buffer, initialized in
            buffer.baseAddress!.initialize(from: storage + start, count: first)
            if first < count { (buffer.baseAddress! + first).initialize(from: storage, count: count - first) }
            initialized = count
        }
        read.store(tail + count, ordering: .releasing)
        return samples
    }
}
