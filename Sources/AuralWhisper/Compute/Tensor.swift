import Foundation

/// Float32 storage: activations, caches and the weights the engine computes with.
typealias Tensor = Storage<Float>

/// float16 storage: a model's float16 weights kept as `model.bin` stores them, so that decoder steps read half the
/// bytes (see `SkinnyGEMM`).
typealias HalfTensor = Storage<Float16>

/// int8 storage: quantized weights and activations (the int8 compute type; see `Int8Weights`).
typealias ByteTensor = Storage<Int8>

/// Numbers with a stable address, freed on deinit.
///
/// Weights are written once at load and only read afterwards, which makes sharing them across threads safe
/// (hence `@unchecked Sendable`). Per-run buffers (activations, caches) are created by the run that uses them and
/// never shared.
///
/// Memory comes from `calloc`: zero-filled by the system, so pages of a large buffer that are never written (the
/// decoder's cache beyond the tokens decoded so far) never become resident. Buffers written in full before they are
/// read (copies, activations) skip the zero-fill (`init(uninitializedCount:)`). Elements are plain numbers (Float,
/// Float16, Int8, Int32), whose zero is all zero bits.
final class Storage<Element: Numeric & BitwiseCopyable>: @unchecked Sendable {
    /// The first element; valid for `count` elements while the storage lives.
    let pointer: UnsafeMutablePointer<Element>
    /// Number of elements.
    let count: Int

    /// Zero-filled storage of `count` elements.
    init(count: Int) {
        self.count = count
        guard let memory = calloc(max(count, 1), MemoryLayout<Element>.stride) else {
            fatalError("out of memory allocating \(count) × \(MemoryLayout<Element>.stride) bytes")
        }
        pointer = memory.bindMemory(to: Element.self, capacity: max(count, 1))
    }

    /// Storage of `count` elements that the caller writes in full before reading any: `malloc`, not zero-filled
    /// (a buffer reused from the heap would otherwise be cleared only to be overwritten).
    init(uninitializedCount count: Int) {
        self.count = count
        guard let memory = malloc(max(count, 1) * MemoryLayout<Element>.stride) else {
            fatalError("out of memory allocating \(count) × \(MemoryLayout<Element>.stride) bytes")
        }
        pointer = memory.bindMemory(to: Element.self, capacity: max(count, 1))
    }

    /// Storage holding a copy of `values`.
    convenience init(_ values: [Element]) {
        self.init(uninitializedCount: values.count)
        values.withUnsafeBufferPointer { pointer.update(from: $0.baseAddress!, count: values.count) }
    }

    /// Storage holding a copy of `other`'s elements.
    convenience init(copying other: Storage<Element>) {
        self.init(uninitializedCount: other.count)
        pointer.update(from: other.pointer, count: other.count)
    }

    deinit { free(pointer) }

    /// The elements as an array (for tests and small values).
    var array: [Element] { Array(UnsafeBufferPointer(start: pointer, count: count)) }

    subscript(index: Int) -> Element {
        get { pointer[index] }
        set { pointer[index] = newValue }
    }
}
