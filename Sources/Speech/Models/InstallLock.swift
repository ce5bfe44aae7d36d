import Foundation

/// An advisory `flock` on `<cache>/.staging/<name>.lock`, held while a process downloads into that model's staging
/// folder, so that two processes installing the same model take turns instead of writing the same files. The kernel
/// drops it when the process ends, however it ends, so a killed install never blocks the next one.
final class InstallLock: @unchecked Sendable {
    private let descriptor: Int32

    private init(descriptor: Int32) { self.descriptor = descriptor }

    deinit {
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }

    /// Takes the lock, waiting (on a thread of its own, not the cooperative pool) while another process holds it.
    static func acquire(_ url: URL) async throws -> InstallLock {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        let descriptor = open(url.path, O_CREAT | O_RDWR | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        if flock(descriptor, LOCK_EX | LOCK_NB) == 0 { return InstallLock(descriptor: descriptor) }
        return try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                if flock(descriptor, LOCK_EX) == 0 {
                    continuation.resume(returning: InstallLock(descriptor: descriptor))
                } else {
                    let code = errno
                    close(descriptor)
                    continuation.resume(throwing: POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO))
                }
            }
        }
    }
}
