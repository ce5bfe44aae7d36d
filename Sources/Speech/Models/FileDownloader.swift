import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Downloads one file of a model into `<file>.partial`, resuming from the bytes already there, hashing each chunk
/// as it arrives, and renames it to `<file>` once its size and SHA-256 check out.
///
/// URLSession on Linux gives no resume data, so resuming is done by hand: `Range: bytes=<offset>-` with
/// `If-Range: <validator>`; a 206 appends, a 200 starts over. The session's delegate queue is a serial queue of its
/// own, so writing and hashing never run on Swift's cooperative pool. A connection that breaks after some bytes
/// arrived is retried from the byte reached.
final class FileDownloader: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    /// What to fetch and what it must be.
    struct Job: Sendable {
        var url: URL
        /// The verified file's final place (its folder must exist).
        var destination: URL
        var expectedSize: Int64?
        var expectedSHA256: String?
        var token: String?
        var timeout: TimeInterval
        /// Free bytes in the destination's file system, asked before writing what the server announces.
        var freeSpace: @Sendable (URL) -> Int64?
    }

    /// How a single HTTP exchange ended.
    private enum AttemptEnd {
        case finished
        case interrupted(URLError)
        /// The partial file was reset because the server's answer did not continue it.
        case restarted
    }

    private let job: Job
    private let onProgress: @Sendable (Int64) -> Void
    private let queue: OperationQueue
    private let lock = NSLock()

    // State touched only on `queue` (the delegate queue), or before the first request / after the last.
    private var partial: URL { job.destination.appendingPathExtension("partial") }
    private var validatorFile: URL { job.destination.appendingPathExtension("partial-etag") }
    private var handle: FileHandle?
    private var hasher = SHA256()
    private var offset: Int64 = 0
    private var statedSHA256: String?
    private var statedSize: Int64?
    private var failure: Error?
    private var receivedThisAttempt: Int64 = 0
    private var continuation: CheckedContinuation<AttemptEnd, Error>?
    private var task: URLSessionDataTask?  // guarded by `lock`
    private var cancelled = false  // guarded by `lock`

    /// - Parameter onProgress: called with the bytes of this file on disk, on the download's own queue.
    init(_ job: Job, onProgress: @escaping @Sendable (Int64) -> Void) {
        self.job = job
        self.onProgress = onProgress
        queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        queue.name = "AuralKit.FileDownloader"
        super.init()
    }

    /// Downloads, verifies and renames the file.
    /// - Throws: `FileDownloadError`, `CancellationError`, or `URLError` for a server that cannot be reached.
    func run() async throws {
        try await onQueue { try self.resumeFromPartial() }
        var attemptsWithoutProgress = 0
        while true {
            try Task.checkCancellation()
            let before = offset
            let end = try await withTaskCancellationHandler {
                try await attempt()
            } onCancel: {
                cancel()
            }
            if case .restarted = end {
                attemptsWithoutProgress += 1
                if attemptsWithoutProgress >= 3 {
                    throw FileDownloadError.connectionLost(url: job.url.absoluteString, reason: "the server does not continue the partial file")
                }
                continue
            }
            if case .interrupted(let error) = end {
                if isCancelled { throw CancellationError() }
                // Nothing ever arrived: the server is unreachable, not flaky.
                if offset == 0 && before == 0 && receivedThisAttempt == 0 && Self.isUnreachable(error) { throw error }
                attemptsWithoutProgress = offset > before ? 0 : attemptsWithoutProgress + 1
                if attemptsWithoutProgress >= 3 {
                    throw FileDownloadError.connectionLost(url: job.url.absoluteString, reason: error.localizedDescription)
                }
                try await Task.sleep(for: .milliseconds(attemptsWithoutProgress == 0 ? 50 : 500))
                continue
            }
            if let size = statedSize ?? job.expectedSize, offset < size {
                // The body ended early without an error (a server that closed the connection): resume.
                attemptsWithoutProgress = offset > before ? 0 : attemptsWithoutProgress + 1
                if attemptsWithoutProgress >= 3 {
                    throw FileDownloadError.connectionLost(url: job.url.absoluteString, reason: "the body ended at byte \(offset)")
                }
                continue
            }
            break
        }
        try await onQueue { try self.verifyAndInstall() }
    }

    var isCancelled: Bool { lock.withLock { cancelled } }

    /// Stops the transfer; the partial file stays for the next attempt.
    func cancel() {
        lock.withLock {
            cancelled = true
            task?.cancel()
        }
    }

    // MARK: - Steps (on the queue)

    private func resumeFromPartial() throws {
        let manager = FileManager.default
        if !manager.fileExists(atPath: partial.path) {
            try? manager.removeItem(at: validatorFile)
            guard manager.createFile(atPath: partial.path, contents: nil) else {
                throw FileDownloadError.fileSystem(path: partial.path, reason: "cannot create the file")
            }
        }
        let size = (try? manager.attributesOfItem(atPath: partial.path)[.size] as? NSNumber)?.int64Value ?? 0
        if let expected = job.expectedSize, size > expected {
            try truncatePartial()
            return
        }
        // Hash what is already there, so that the digest covers the whole file once the rest arrives.
        let reader = try FileHandle(forReadingFrom: partial)
        defer { try? reader.close() }
        while let chunk = try reader.read(upToCount: 4 << 20), !chunk.isEmpty {
            chunk.withUnsafeBytes { hasher.update(raw: $0) }
            offset += Int64(chunk.count)
        }
        onProgress(offset)
    }

    private func truncatePartial() throws {
        try? handle?.close()
        handle = nil
        guard FileManager.default.createFile(atPath: partial.path, contents: nil) else {
            throw FileDownloadError.fileSystem(path: partial.path, reason: "cannot create the file")
        }
        try? FileManager.default.removeItem(at: validatorFile)
        hasher = SHA256()
        offset = 0
        onProgress(0)
    }

    private func verifyAndInstall() throws {
        try? handle?.close()
        handle = nil
        let name = job.destination.lastPathComponent
        if let expected = job.expectedSize ?? statedSize, offset != expected {
            try? FileManager.default.removeItem(at: partial)
            throw FileDownloadError.sizeMismatch(file: name, expected: expected, actual: offset)
        }
        let digest = hasher.finalize()
        for expected in [job.expectedSHA256, statedSHA256].compactMap({ $0?.lowercased() }) where expected != digest {
            try? FileManager.default.removeItem(at: partial)
            try? FileManager.default.removeItem(at: validatorFile)
            throw FileDownloadError.checksumMismatch(file: name, expected: expected, actual: digest)
        }
        try? FileManager.default.removeItem(at: job.destination)
        do {
            try FileManager.default.moveItem(at: partial, to: job.destination)
        } catch {
            throw FileDownloadError.fileSystem(path: job.destination.path, reason: error.localizedDescription)
        }
        try? FileManager.default.removeItem(at: validatorFile)
    }

    // MARK: - One HTTP exchange

    private func attempt() async throws -> AttemptEnd {
        var request = URLRequest(url: job.url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: job.timeout)
        request.setValue("identity", forHTTPHeaderField: "Accept-Encoding")
        request.setValue("AuralKit", forHTTPHeaderField: "User-Agent")
        if let token = job.token, !token.isEmpty { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        if offset > 0 {
            request.setValue("bytes=\(offset)-", forHTTPHeaderField: "Range")
            if let validator = try? String(contentsOf: validatorFile, encoding: .utf8), !validator.isEmpty {
                request.setValue(validator, forHTTPHeaderField: "If-Range")
            }
        }
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = job.timeout
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.urlCache = nil
        let session = URLSession(configuration: configuration, delegate: self, delegateQueue: queue)
        defer { session.finishTasksAndInvalidate() }
        let prepared = request
        return try await withCheckedThrowingContinuation { continuation in
            queue.addOperation {
                self.continuation = continuation
                self.failure = nil
                self.receivedThisAttempt = 0
                let task = session.dataTask(with: prepared)
                let alreadyCancelled = self.lock.withLock {
                    self.task = task
                    return self.cancelled
                }
                if alreadyCancelled { task.cancel() }
                task.resume()
            }
        }
    }

    private func finish(_ result: Result<AttemptEnd, Error>) {
        try? handle?.close()
        handle = nil
        lock.withLock { task = nil }
        continuation?.resume(with: result)
        continuation = nil
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        // Hugging Face answers a large (LFS) file with a redirect to its CDN that states the file's SHA-256 and size.
        if let linked = Self.header("X-Linked-Etag", in: response).flatMap(Self.sha256(fromETag:)) { statedSHA256 = linked }
        if let size = Self.header("X-Linked-Size", in: response).flatMap({ Int64($0) }) { statedSize = size }
        var next = request
        for field in ["Range", "If-Range", "Accept-Encoding"] {
            if let value = task.originalRequest?.value(forHTTPHeaderField: field) { next.setValue(value, forHTTPHeaderField: field) }
        }
        if next.url?.host != task.originalRequest?.url?.host || next.url?.port != task.originalRequest?.url?.port {
            next.setValue(nil, forHTTPHeaderField: "Authorization")  // the token is for the hub, not for the CDN
        }
        completionHandler(next)
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        guard let http = response as? HTTPURLResponse else {
            failure = FileDownloadError.fileSystem(path: job.url.absoluteString, reason: "not an HTTP response")
            return completionHandler(.cancel)
        }
        do {
            try accept(http)
            completionHandler(.allow)
        } catch {
            failure = error
            completionHandler(.cancel)
        }
    }

    private func accept(_ http: HTTPURLResponse) throws {
        let status = http.statusCode
        let length = Self.header("Content-Length", in: http).flatMap { Int64($0) }
        switch status {
        case 206:
            let start = Self.header("Content-Range", in: http).flatMap(Self.rangeStart(fromContentRange:))
            guard start == offset else { try truncatePartial(); throw FileDownloadError.restart }
        case 200:
            if offset > 0 { try truncatePartial() }  // the server ignored the range or the file changed: start over
        case 416:
            try truncatePartial()
            throw FileDownloadError.restart
        default:
            throw FileDownloadError.httpStatus(code: status, url: http.url?.absoluteString ?? job.url.absoluteString)
        }
        if let etag = Self.header("ETag", in: http) {
            if statedSHA256 == nil, let sha = Self.sha256(fromETag: etag) { statedSHA256 = sha }
            if !etag.hasPrefix("W/") { try? etag.write(to: validatorFile, atomically: true, encoding: .utf8) }
        }
        if let length {
            if statedSize == nil && job.expectedSize == nil { statedSize = offset + length }
            if let free = job.freeSpace(partial.deletingLastPathComponent()), length > free {
                throw FileDownloadError.insufficientDiskSpace(required: length, available: free, path: partial.deletingLastPathComponent().path)
            }
        }
        let writer = try FileHandle(forWritingTo: partial)
        try writer.seekToEnd()
        handle = writer
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        guard failure == nil, let handle else { return }
        do {
            try handle.write(contentsOf: data)
        } catch {
            failure = Self.isOutOfSpace(error)
                ? FileDownloadError.diskFull(path: partial.path)
                : FileDownloadError.fileSystem(path: partial.path, reason: error.localizedDescription)
            dataTask.cancel()
            return
        }
        data.withUnsafeBytes { hasher.update(raw: $0) }
        offset += Int64(data.count)
        receivedThisAttempt += Int64(data.count)
        onProgress(offset)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
        if let failure {
            if case FileDownloadError.restart = failure { return finish(.success(.restarted)) }
            return finish(.failure(failure))
        }
        guard let error else { return finish(.success(.finished)) }
        let urlError = error as? URLError ?? URLError(.unknown, userInfo: [NSUnderlyingErrorKey: error])
        if urlError.code == .cancelled && isCancelled { return finish(.failure(CancellationError())) }
        finish(.success(.interrupted(urlError)))
    }

    // MARK: - Helpers

    private func onQueue<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.addOperation { continuation.resume(with: Result { try body() }) }
        }
    }

    /// Errors that mean the server was never reached.
    static func isUnreachable(_ error: URLError) -> Bool {
        [.cannotFindHost, .cannotConnectToHost, .dnsLookupFailed, .notConnectedToInternet, .timedOut, .networkConnectionLost,
         .secureConnectionFailed, .cannotLoadFromNetwork, .internationalRoamingOff, .dataNotAllowed]
            .contains(error.code)
    }

    private static func isOutOfSpace(_ error: Error) -> Bool {
        let ns = error as NSError
        if ns.domain == NSPOSIXErrorDomain && ns.code == Int(ENOSPC) { return true }
        if ns.domain == NSCocoaErrorDomain && ns.code == CocoaError.fileWriteOutOfSpace.rawValue { return true }
        if let underlying = ns.userInfo[NSUnderlyingErrorKey] as? NSError { return isOutOfSpace(underlying) }
        return false
    }

    static func header(_ name: String, in response: HTTPURLResponse) -> String? {
        for (key, value) in response.allHeaderFields {
            if let key = key as? String, key.caseInsensitiveCompare(name) == .orderedSame { return value as? String }
        }
        return nil
    }

    /// The SHA-256 in an entity tag such as `"1a5a…2a"` or `W/"1a5a…2a"`, or nil when it is not one (Hugging Face
    /// gives small files a git SHA-1 instead).
    static func sha256(fromETag etag: String) -> String? {
        var text = etag.trimmingCharacters(in: .whitespaces)
        if text.hasPrefix("W/") { text.removeFirst(2) }
        text = text.trimmingCharacters(in: CharacterSet(charactersIn: "\""))
        guard text.count == 64, text.allSatisfy(\.isHexDigit) else { return nil }
        return text.lowercased()
    }

    /// The first byte of `bytes <first>-<last>/<total>`.
    static func rangeStart(fromContentRange value: String) -> Int64? {
        guard let range = value.split(separator: " ").last, let first = range.split(separator: "-").first else { return nil }
        return Int64(first)
    }
}

/// A download failure before it is mapped to `SpeechModelError` by `ModelManager`.
enum FileDownloadError: Error {
    case httpStatus(code: Int, url: String)
    case sizeMismatch(file: String, expected: Int64, actual: Int64)
    case checksumMismatch(file: String, expected: String, actual: String)
    case insufficientDiskSpace(required: Int64, available: Int64, path: String)
    case diskFull(path: String)
    case fileSystem(path: String, reason: String)
    case connectionLost(url: String, reason: String)
    /// The server's answer does not continue the partial file; the partial was reset, ask again.
    case restart

    var failure: ModelDownloadFailure {
        switch self {
        case .httpStatus(let code, let url): .httpStatus(code: code, url: url)
        case .sizeMismatch(let file, let expected, let actual): .sizeMismatch(file: file, expected: expected, actual: actual)
        case .checksumMismatch(let file, let expected, let actual): .checksumMismatch(file: file, expected: expected, actual: actual)
        case .insufficientDiskSpace(let required, let available, let path):
            .insufficientDiskSpace(required: required, available: available, path: path)
        case .diskFull(let path): .diskFull(path: path)
        case .fileSystem(let path, let reason): .fileSystem(path: path, reason: reason)
        case .connectionLost(let url, let reason): .connectionLost(url: url, reason: reason)
        case .restart: .connectionLost(url: "", reason: "the server did not continue the partial file")
        }
    }
}
