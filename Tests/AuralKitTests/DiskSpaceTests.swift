import AuralKit
import Foundation
import TestSupport
import Testing

/// A real small file system: a tmpfs mounted for one test (needs root, as in the project's containers and CI).
/// Where mounting is not allowed these tests are skipped, not faked.
final class SmallFileSystem {
    let url: URL

    init(megabytes: Int) throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("auralkit-tmpfs-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        guard Self.run("/bin/mount", ["-t", "tmpfs", "-o", "size=\(megabytes)m", "tmpfs", url.path]) else {
            try? FileManager.default.removeItem(at: url)
            throw CocoaError(.fileWriteNoPermission)
        }
    }

    deinit {
        _ = Self.run("/bin/umount", [url.path])
        try? FileManager.default.removeItem(at: url)
    }

    static let isAvailable: Bool = (try? SmallFileSystem(megabytes: 1)) != nil

    @discardableResult
    static func run(_ tool: String, _ arguments: [String]) -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        process.standardError = FileHandle.nullDevice
        guard (try? process.runWithDefaultSignals()) != nil else { return false }
        return process.waitForExit() == 0  // Foundation's waitUntilExit can miss an exit and wait forever
    }
}

@Suite("ModelManager on a full disk", .enabled(if: SmallFileSystem.isAvailable, "mounting a tmpfs needs root"))
struct DiskSpaceTests {
    @Test("too little free space is refused before any byte is downloaded")
    func checksFreeSpaceFirst() async throws {
        let disk = try SmallFileSystem(megabytes: 20)
        let server = try await HubServer.start()
        let manager = ModelManager(cacheDirectory: disk.url, endpoint: server.endpoint)
        do {
            try await manager.install("tiny.en")
            Issue.record("installed 78 MB into 20 MB")
        } catch SpeechModelError.modelDownloadFailed("tiny.en", .insufficientDiskSpace(let required, let available, _)) {
            #expect(required == HubServer.tinyEnglishSize)
            #expect(available <= 20 << 20)
        }
        #expect(try await server.stats().bytesSent == 0)
        #expect(await manager.installedModels().isEmpty)
    }

    @Test("a disk that fills up while writing gives diskFull, and nothing lands in the cache")
    func mapsENOSPC() async throws {
        let disk = try SmallFileSystem(megabytes: 40)
        // No sizes in the catalog and no Content-Length from the server: only the write itself can find out.
        let server = try await HubServer.start(faults: ["nolength:model.bin"])
        let manager = ModelManager(cacheDirectory: disk.url, endpoint: server.endpoint, catalog: ModelManagerTests.unpinnedCatalog)
        do {
            try await manager.install("tiny.en")
            Issue.record("installed 78 MB into 40 MB")
        } catch SpeechModelError.modelDownloadFailed("tiny.en", .diskFull(let path)) {
            #expect(path.hasSuffix("model.bin.partial"))
        }
        #expect(await manager.installedModels().isEmpty)
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: disk.url.path)) ?? []) == [".staging"])
    }
}
