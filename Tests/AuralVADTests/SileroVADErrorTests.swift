import AuralVAD
import Foundation
import Testing

@Suite("SileroVADError")
struct SileroVADErrorTests {
    /// A safetensors file of the given tensors (name, dtype, shape, data bytes) with a `headerLength` override.
    static func file(_ tensors: [(String, String, [Int], Data)], headerLength: UInt64? = nil) -> Data {
        var header: [String: Any] = [:]
        var offset = 0
        var body = Data()
        for (name, dtype, shape, data) in tensors {
            header[name] = ["dtype": dtype, "shape": shape, "data_offsets": [offset, offset + data.count]]
            offset += data.count
            body += data
        }
        let json = try! JSONSerialization.data(withJSONObject: header, options: .sortedKeys)
        var length = headerLength ?? UInt64(json.count)
        return Data(bytes: &length, count: 8) + json + body
    }

    static func write(_ data: Data) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("auralvad-\(UUID().uuidString).safetensors")
        try data.write(to: url)
        return url
    }

    static func reason(loading url: URL) -> SileroVADError? {
        do {
            _ = try SileroVAD(contentsOf: url)
            return nil
        } catch {
            return error as? SileroVADError
        }
    }

    @Test("a missing file is modelNotFound")
    func missing() {
        let url = URL(fileURLWithPath: "/nonexistent/silero-vad/silero_vad.safetensors")
        #expect(Self.reason(loading: url) == .modelNotFound(path: url.path))
    }

    @Test("a folder is unreadable")
    func folder() {
        guard case .unreadableModel = Self.reason(loading: FileManager.default.temporaryDirectory) else {
            Issue.record("expected unreadableModel")
            return
        }
    }

    @Test(
        "a damaged or foreign file is invalidModel, naming what is wrong",
        arguments: [
            ("too short", Data([1, 2, 3]), "too few"),
            ("header past the end", file([], headerLength: 1 << 40), "header claims"),
            ("header not JSON", Data([4, 0, 0, 0, 0, 0, 0, 0]) + Data("nope".utf8), "not a JSON object"),
            ("a tensor missing", file([("stft_conv.weight", "F32", [258, 1, 256], Data(count: 258 * 256 * 4))]), "conv1.weight is missing"),
            ("a wrong shape", file([("stft_conv.weight", "F32", [258, 256], Data(count: 258 * 256 * 4))]), "shape [258, 256]"),
            ("an unread dtype", file([("stft_conv.weight", "I64", [258, 1, 256], Data(count: 258 * 256 * 8))]), "I64"),
            ("data cut short", file([("stft_conv.weight", "F32", [258, 1, 256], Data(count: 100))]), "holds 100 bytes"),
        ])
    func invalid(name: String, data: Data, evidence: String) throws {
        let url = try Self.write(data)
        defer { try? FileManager.default.removeItem(at: url) }
        guard case .invalidModel(let path, let reason) = Self.reason(loading: url) else {
            Issue.record("\(name): expected invalidModel")
            return
        }
        #expect(path == url.path)
        #expect(reason.contains(evidence), "\(name): \(reason)")
    }

    @Test("a truncated weights file is invalidModel", .requiresVAD)
    func truncated() throws {
        let whole = try Data(contentsOf: VADFixtures.weights)
        let url = try Self.write(whole.prefix(whole.count / 2))
        defer { try? FileManager.default.removeItem(at: url) }
        guard case .invalidModel = Self.reason(loading: url) else {
            Issue.record("expected invalidModel")
            return
        }
    }

    @Test(
        "every case has a description, a reason and a suggestion",
        arguments: [
            SileroVADError.modelNotFound(path: "/x"), .unreadableModel(path: "/x", reason: "r"),
            .invalidModel(path: "/x", reason: "r"),
        ])
    func texts(error: SileroVADError) {
        #expect(error.errorDescription?.isEmpty == false)
        #expect(error.failureReason?.isEmpty == false)
        #expect(error.recoverySuggestion?.isEmpty == false)
    }
}
