import Foundation
import Speech
import TestSupport
import Testing

@testable import AuralServe

/// A Realtime session driven directly (no socket): the bundled recording appended as 16 kHz PCM16 in 100 ms pieces.
@Suite("Realtime session", .serialized)
struct RealtimeSessionTests {
    final class Sink: @unchecked Sendable {
        let lock = NSLock()
        var events: [[String: Any]] = []
        func add(_ data: Data) -> Bool {
            let event = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
            lock.withLock { events.append(event) }
            return true
        }
        var completed: [String] {
            lock.withLock { events.filter { $0["type"] as? String == "conversation.item.input_audio_transcription.completed" }.compactMap { $0["transcript"] as? String } }
        }
    }

    @Test("appended audio comes back as completed items", .requiresFixtures(audio: ["two_cities.wav"], models: ["tiny.en"]))
    func items() async throws {
        let samples = try Fixtures.samples("two_cities.wav")
        let sink = Sink()
        let registry = ModelRegistry(defaultModel: "tiny.en", computeType: .auto, threadsPerTranscription: nil, manager: .shared)
        let session = RealtimeSession(settings: .init(models: registry, computeType: .auto, modelManager: .shared), send: { sink.add($0) })
        session.open()
        session.receive(Data(#"{"type":"session.update","session":{"audio":{"input":{"format":{"type":"audio/pcm","rate":16000}}}}}"#.utf8))
        for start in stride(from: 0, to: samples.count, by: 1600) {
            let piece = samples[start..<min(start + 1600, samples.count)]
            var bytes = Data()
            for sample in piece { withUnsafeBytes(of: Int16(max(-32768, min(32767, (sample * 32768).rounded()))).littleEndian) { bytes.append(contentsOf: $0) } }
            session.receive(Data(#"{"type":"input_audio_buffer.append","audio":"\#(bytes.base64EncodedString())"}"#.utf8))
            try await Task.sleep(for: .milliseconds(25))  // four times real time: the analyzer holds what waits
        }
        session.receive(Data(#"{"type":"input_audio_buffer.commit"}"#.utf8))
        // The analyzer catches up with the audio held for it, then the commit's phrase comes: wait until the items
        // stop coming (2 s without one), for at most a minute.
        var (count, quiet) = (-1, 0)
        for _ in 0..<600 where quiet < 20 {
            try await Task.sleep(for: .milliseconds(100))
            let now = sink.completed.count
            (count, quiet) = now == count ? (count, quiet + 1) : (now, 0)
        }
        session.close()
        let transcripts = sink.completed.filter { !$0.isEmpty }
        #expect(transcripts.count >= 2)
        #expect(WordErrorRate.percent(reference: ReferenceTranscripts.twoCities, hypothesis: transcripts.joined(separator: " ")) < 20)
    }
}
