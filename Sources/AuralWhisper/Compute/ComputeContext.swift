import Foundation

/// Where and how wide the engine computes: the worker pool and the most threads one job may use.
///
/// Every transcription or window decode runs as a job of a context. The thread count caps that job's parallel parts;
/// it never resizes the pool, so two sessions with different counts do not change each other's setting. One pool
/// serves the process (`WorkerPool.shared`, one worker per extra core); a job that finds it busy runs its parts on
/// its own thread, so concurrent jobs never oversubscribe the cores.
///
/// ```swift
/// let decoder = WindowDecoder(model: model, compute: ComputeContext(threads: 1))   // one core for this decoder
/// ```
public struct ComputeContext: Sendable, Hashable {
    /// Every core the pool has.
    public static let shared = ComputeContext()

    /// The most threads a job uses, its calling thread included; nil uses the whole pool.
    public let threads: Int?

    /// - Parameter threads: the most threads a job of this context uses (at least 1); nil uses every core.
    public init(threads: Int? = nil) {
        self.threads = threads.map { max(1, $0) }
    }

    /// Threads a job of this context uses on this machine.
    public var effectiveThreads: Int {
        let size = WorkerPool.shared.poolSize
        return threads.map { min($0, size) } ?? size
    }

    /// Runs `body` on the calling thread as a job of this context: kernels inside it split their work over at most
    /// `threads` threads of the pool. Jobs nest; the innermost context applies.
    func run<T>(_ body: () throws -> T) rethrows -> T {
        let previous = JobSettings.current
        JobSettings.current = JobSettings(pool: .shared, threads: threads)
        defer { JobSettings.current = previous }
        return try body()
    }
}

/// The pool and thread cap of the job running on a thread: a per-thread value read by every kernel that splits work.
struct JobSettings {
    let pool: WorkerPool
    let threads: Int?

    private final class Box {
        let settings: JobSettings
        init(_ settings: JobSettings) { self.settings = settings }
    }

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key) { raw in
            guard let raw else { return }
            Unmanaged<AnyObject>.fromOpaque(raw).release()
        }
        return key
    }()

    /// This thread's job settings; nil outside any job.
    static var current: JobSettings? {
        get {
            guard let raw = pthread_getspecific(key) else { return nil }
            return Unmanaged<Box>.fromOpaque(raw).takeUnretainedValue().settings
        }
        set {
            if let old = pthread_getspecific(key) { Unmanaged<Box>.fromOpaque(old).release() }
            let box = newValue.map { Unmanaged.passRetained(Box($0)).toOpaque() }
            pthread_setspecific(key, box)
        }
    }
}
