import Foundation
import TestSupport
import Testing
@testable import AuralWhisper

@Suite("Bad input", .heavyWork)
struct BadInputTests {
    /// A copy of the tiny.en folder in a temporary directory, for breaking.
    static func copyOfTinyModel() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("auralkit-bad-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for name in ["config.json", "vocabulary.txt", "tokenizer.json"] {
            try FileManager.default.copyItem(at: Fixtures.modelFolder("tiny.en").appendingPathComponent(name), to: folder.appendingPathComponent(name))
        }
        return folder
    }

    static func writeModel(_ data: Data, into folder: URL) throws {
        try data.write(to: folder.appendingPathComponent("model.bin"))
    }

    static func originalModel() throws -> Data {
        try Data(contentsOf: Fixtures.modelFolder("tiny.en").appendingPathComponent("model.bin"), options: .alwaysMapped)
    }

    /// A CTranslate2 file with the given variables (name, dtype id, shape, payload) and no aliases.
    static func modelFile(spec: String, variables: [(String, UInt8, [UInt32], Data)]) -> Data {
        var data = Data()
        func u32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { data.append(contentsOf: $0) } }
        func string(_ s: String) {
            let bytes = Array(s.utf8) + [0]
            withUnsafeBytes(of: UInt16(bytes.count).littleEndian) { data.append(contentsOf: $0) }
            data.append(contentsOf: bytes)
        }
        u32(6)
        string(spec)
        u32(1)
        u32(UInt32(variables.count))
        for (name, type, shape, payload) in variables {
            string(name)
            data.append(UInt8(shape.count))
            shape.forEach(u32)
            data.append(type)
            u32(UInt32(payload.count))
            data.append(payload)
        }
        u32(0)
        return data
    }

    @Test("a truncated model.bin is reported as corrupt")
    func truncatedModel() throws {
        let folder = try Self.copyOfTinyModel()
        defer { try? FileManager.default.removeItem(at: folder) }
        let original = try Self.originalModel()
        try Self.writeModel(original.prefix(original.count / 2), into: folder)
        #expect {
            try WhisperModel(folder: folder)
        } throws: { error in
            guard case WhisperModelError.corruptModel(_, let reason) = error else { return false }
            return reason.contains("truncated")
        }
    }

    @Test("random bytes in place of model.bin are reported as corrupt")
    func garbageModel() throws {
        let folder = try Self.copyOfTinyModel()
        defer { try? FileManager.default.removeItem(at: folder) }
        var generator = SplitMix64(seed: 7)
        try Self.writeModel(Data((0..<4096).map { _ in UInt8.random(in: 0...255, using: &generator) }), into: folder)
        #expect(throws: WhisperModelError.self) { try WhisperModel(folder: folder) }
    }

    @Test("a missing vocabulary.txt names the file")
    func missingVocabulary() throws {
        let folder = try Self.copyOfTinyModel()
        defer { try? FileManager.default.removeItem(at: folder) }
        try Self.writeModel(Self.originalModel(), into: folder)
        try FileManager.default.removeItem(at: folder.appendingPathComponent("vocabulary.txt"))
        #expect(throws: WhisperModelError.missingFile(path: folder.appendingPathComponent("vocabulary.txt").path)) {
            try WhisperModel(folder: folder)
        }
    }

    @Test("a folder of another model type is refused")
    func otherModelType() throws {
        let folder = try Self.copyOfTinyModel()
        defer { try? FileManager.default.removeItem(at: folder) }
        let weight = Data(repeating: 0, count: 16)
        try Self.writeModel(Self.modelFile(spec: "TransformerSpec", variables: [("encoder/weight", 0, [2, 2], weight)]), into: folder)
        #expect {
            try WhisperModel(folder: folder)
        } throws: { error in
            guard case WhisperModelError.unsupportedModel(_, let reason) = error else { return false }
            return reason.contains("TransformerSpec")
        }
    }

    @Test("an int8 weight reads as value / scale; without its scale it is a corrupt model")
    func quantizedModel() throws {
        let scales: [Float] = [2, 0.5]
        let data = Self.modelFile(spec: "WhisperSpec", variables: [
            ("decoder/embeddings/weight", 1, [2, 2], Data([1, 2, 0xFF, 0x81])),  // 1, 2, −1, −127
            ("decoder/embeddings/weight_scale", 0, [2], scales.withUnsafeBytes { Data($0) }),
            ("encoder/conv1/weight", 1, [2, 2], Data([1, 2, 3, 4])),
        ])
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("auralkit-int8-\(UUID().uuidString).bin")
        try data.write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let file = try ModelFile(url: url)
        #expect(try file.floats("decoder/embeddings/weight") == [0.5, 1, -2, -254])
        #expect {
            _ = try file.floats("encoder/conv1/weight")
        } throws: { error in
            guard case WhisperModelError.corruptModel(_, let reason) = error else { return false }
            return reason.contains("encoder/conv1/weight_scale")
        }
    }

    @Test("a folder that does not exist is a missing file, not a crash")
    func missingFolder() {
        #expect(throws: WhisperModelError.missingFile(path: "/nonexistent/model")) {
            try WhisperModel(folder: URL(fileURLWithPath: "/nonexistent/model"))
        }
    }

    @Test("zero-length audio gives no segments", arguments: ["tiny.en", "base"])
    func zeroLength(modelName: String) throws {
        let (info, segments) = try Transcriber(model: try Fixtures.model(modelName)).transcribe([], options: DecodingOptions(beamSize: 1))
        #expect(segments.isEmpty)
        #expect(info.duration == 0)
    }

    @Test("silence and low noise give no text at all", arguments: ["tiny.en", "base"])
    func silenceAndNoise(modelName: String) throws {
        let model = try Fixtures.model(modelName)
        var generator = SplitMix64(seed: 1)
        let silence = [Float](repeating: 0, count: 16_000 * 20)
        let noise = (0..<(16_000 * 20)).map { _ in Float.random(in: -0.004...0.004, using: &generator) }
        for samples in [silence, noise] {
            let (_, segments) = try Transcriber(model: model).transcribe(samples, options: DecodingOptions(language: "en"))
            #expect(segments.map(\.text).joined() == "")
        }
        // Without the gate Whisper writes something into the silence: the gate is what keeps it empty.
        let ungated = try Transcriber(model: model).transcribe(silence, options: DecodingOptions(language: "en", silenceThreshold: nil))
        #expect(!ungated.segments.isEmpty)
    }

    @Test("speech after a long silence is still transcribed")
    func speechAfterSilence() throws {
        let model = try Fixtures.model("tiny.en")
        let speech = try Fixtures.samples("beckett.wav")
        let samples = [Float](repeating: 0, count: 16_000 * 35) + speech
        let (_, segments) = try Transcriber(model: model).transcribe(samples, options: DecodingOptions(beamSize: 1))
        let text = segments.map(\.text).joined()
        #expect(text.contains("Ever tried"))
        #expect(text.contains("Fail better"))
        // The silent first window is skipped; the speech comes in the window that starts at 30 s.
        #expect(segments.first!.start >= 30)
    }

    @Test("NaN samples are refused")
    func nonFiniteSamples() throws {
        let model = try Fixtures.model("tiny.en")
        #expect(throws: TranscriptionError.invalidAudio(reason: "sample 1 is nan, not a finite number")) {
            try Transcriber(model: model).transcribe([0, .nan, 0])
        }
    }

    @Test("out-of-range options are refused")
    func badOptions() throws {
        let model = try Fixtures.model("tiny.en")
        #expect(throws: TranscriptionError.invalidOption(name: "beamSize", reason: "must be at least 1, got 0")) {
            try Transcriber(model: model).transcribe([0], options: DecodingOptions(beamSize: 0))
        }
    }

    @Test("every error has a description, a reason and a recovery suggestion")
    func errorTexts() {
        let errors: [any LocalizedError] = [
            WhisperModelError.missingFile(path: "/x"), WhisperModelError.unreadableFile(path: "/x", reason: "r"),
            WhisperModelError.corruptModel(path: "/x", reason: "r"), WhisperModelError.unsupportedModel(path: "/x", reason: "r"),
            WhisperModelError.engineUnavailable(reason: "r"), TranscriptionError.invalidAudio(reason: "r"),
            TranscriptionError.invalidOption(name: "n", reason: "r"), TranscriptionError.unsupportedLanguage(code: "xx"),
            TranscriptionError.needsMultilingualModel(feature: "translation"),
        ]
        for error in errors {
            #expect(!(error.errorDescription ?? "").isEmpty)
            #expect(!(error.failureReason ?? "").isEmpty)
            #expect(!(error.recoverySuggestion ?? "").isEmpty)
        }
    }
}
