/// Float storage with a stable address, freed on deinit.
///
/// Weights are written once at load and only read afterwards, which makes sharing them across threads safe
/// (hence `@unchecked Sendable`). Per-run buffers (activations, caches) are created by the run that uses them and
/// never shared.
final class Tensor: @unchecked Sendable {
    /// The first element; valid for `count` elements while the tensor lives.
    let pointer: UnsafeMutablePointer<Float>
    /// Number of elements.
    let count: Int

    /// A zero-filled tensor of `count` elements.
    init(count: Int) {
        self.count = count
        pointer = .allocate(capacity: max(count, 1))
        pointer.initialize(repeating: 0, count: max(count, 1))
    }

    /// A tensor holding a copy of `values`.
    convenience init(_ values: [Float]) {
        self.init(count: values.count)
        values.withUnsafeBufferPointer { pointer.update(from: $0.baseAddress!, count: values.count) }
    }

    deinit { pointer.deallocate() }

    /// The elements as an array (for tests and small values).
    var array: [Float] { Array(UnsafeBufferPointer(start: pointer, count: count)) }

    subscript(index: Int) -> Float {
        get { pointer[index] }
        set { pointer[index] = newValue }
    }
}

/// float16 storage with a stable address, freed on deinit: a model's float16 weights kept as stored, so that the
/// decoder's steps read half the bytes. Written once at load, then only read (hence `@unchecked Sendable`).
final class HalfTensor: @unchecked Sendable {
    /// The first element; valid for `count` elements while the tensor lives.
    let pointer: UnsafeMutablePointer<Float16>
    /// Number of elements.
    let count: Int

    init(count: Int) {
        self.count = count
        pointer = .allocate(capacity: max(count, 1))
        pointer.initialize(repeating: 0, count: max(count, 1))
    }

    deinit { pointer.deallocate() }
}
