@testable import AuralAudio
import AuralWhisper
import Foundation
import Testing

@testable import AuralKit
@testable import Speech

@Suite("ErrorMapping")
struct ErrorMappingTests {
    static let path = "/tmp/x.wav"
    static let url = URL(fileURLWithPath: path)
    static let failure = ModelDownloadFailure.httpStatus(code: 503, url: "https://huggingface.co/x")

    /// Every case of every lower-layer error, and the session error it becomes.
    static let table: [(any Error & Sendable, SpeechSessionError)] = [
        (SpeechSessionError.audioFileTooLong(maximum: 1, actual: 2), .audioFileTooLong(maximum: 1, actual: 2)),
        (
            SpeechModelError.modelNotInstalled(name: "base", searched: "/m/base"),
            .modelNotFound(name: "base", reason: "No model folder exists at /m/base.")
        ),
        (
            SpeechModelError.unknownModel(name: "huge", available: ["base"]),
            .modelNotFound(name: "huge", reason: "The catalog holds base.")
        ),
        (SpeechModelError.unsupportedLocale(Locale(identifier: "tlh")), .unsupportedLocale(Locale(identifier: "tlh"))),
        (
            SpeechModelError.modelDownloadNoInternet(endpoint: "https://huggingface.co", reason: "refused"),
            .modelDownloadNoInternet
        ),
        (
            SpeechModelError.modelDownloadFailed(model: "base", cause: failure),
            .modelDownloadFailed(SpeechModelError.modelDownloadFailed(model: "base", cause: failure))
        ),
        (
            SpeechModelError.modelDownloadFailed(
                model: "base", cause: .insufficientDiskSpace(required: 10, available: 3, path: "/m")),
            .insufficientDiskSpace(needed: 10, available: 3)
        ),
        (
            SpeechModelError.tooManyReservedLocales(maximum: 1, reserved: [Locale(identifier: "en")]),
            .modelReservationFailed(
                Locale(identifier: "und"),
                SpeechModelError.tooManyReservedLocales(maximum: 1, reserved: [Locale(identifier: "en")]))
        ),
        (SpeechModelError.modelReserved(name: "base"), .transcriptionFailed(reason: "The model \"base\" is in use.")),
        (
            SpeechModelError.modelIncomplete(name: "base", problems: ["model.bin is missing"]),
            .modelCorrupt(path: "base", reason: "model.bin is missing.")
        ),
        (
            WhisperModelError.missingFile(path: "/m/base/model.bin"),
            .modelCorrupt(path: "/m/base/model.bin", reason: "No file exists at /m/base/model.bin.")
        ),
        (
            WhisperModelError.unreadableFile(path: "/m/a", reason: "EACCES"),
            .modelCorrupt(path: "/m/a", reason: "EACCES")
        ),
        (WhisperModelError.corruptModel(path: "/m/a", reason: "short"), .modelCorrupt(path: "/m/a", reason: "short")),
        (WhisperModelError.unsupportedModel(path: "/m/a", reason: "int8"), .modelCorrupt(path: "/m/a", reason: "int8")),
        (WhisperModelError.engineUnavailable(reason: "no OpenBLAS"), .transcriptionFailed(reason: "no OpenBLAS")),
        (TranscriptionError.invalidAudio(reason: "NaN"), .transcriptionFailed(reason: "NaN")),
        (TranscriptionError.invalidOption(name: "beamSize", reason: "0"), .transcriptionFailed(reason: "0")),
        (TranscriptionError.unsupportedLanguage(code: "xx"), .unsupportedLocale(Locale(identifier: "xx"))),
        (
            TranscriptionError.needsMultilingualModel(feature: "language detection"),
            .transcriptionFailed(reason: "Language detection needs a multilingual model.")
        ),
        (AudioSourceError.fileNotFound(path: path), .audioFileNotFound(url)),
        (
            AudioSourceError.unreadableFile(path: path, reason: "EACCES"),
            .audioFileReadFailed(AudioSourceError.unreadableFile(path: path, reason: "EACCES"))
        ),
        (AudioSourceError.emptyFile(path: path), .audioFileReadFailed(AudioSourceError.emptyFile(path: path))),
        (AudioSourceError.truncated(path: path), .audioFileReadFailed(AudioSourceError.truncated(path: path))),
        (
            AudioSourceError.invalidHeader(path: path, reason: "0 channels"),
            .audioFileReadFailed(AudioSourceError.invalidHeader(path: path, reason: "0 channels"))
        ),
        (
            AudioSourceError.corruptFile(path: path, reason: "bad"),
            .audioFileReadFailed(AudioSourceError.corruptFile(path: path, reason: "bad"))
        ),
        (AudioSourceError.notAudio(path: path, reason: "It is text."), .audioFileUnsupportedFormat("It is text.")),
        (
            AudioSourceError.unsupportedEncoding(path: path, format: "ADPCM"),
            .audioFileUnsupportedFormat(
                "Only PCM (8-bit unsigned, 16/24/32-bit signed) and IEEE float (32/64-bit) WAV files are read.")
        ),
        (
            AudioSourceError.noAudioTrack(path: path, streams: ["video"]),
            .audioFileUnsupportedFormat("Its streams are: video; none of them is audio.")
        ),
        (
            AudioSourceError.unsupportedCodec(path: path, codec: "xyz"),
            .audioFileUnsupportedFormat("The installed FFmpeg libraries have no decoder for xyz.")
        ),
        (
            AudioSourceError.conversionFailed(reason: "rate 0"),
            .audioConversionFailed(AudioSourceError.conversionFailed(reason: "rate 0"))
        ),
        (
            AudioDeviceError.noSoundServer(server: "the default location", reason: "Connection refused"),
            .soundServerUnavailable(
                reason: "Connecting to the PulseAudio server at the default location failed: Connection refused.")
        ),
        (
            AudioDeviceError.noSoundServer(server: "unix:/run/user/1000/pulse/native", reason: "Access denied"),
            .microphonePermissionDenied
        ),
        (AudioDeviceError.streamFailed(device: "mic", reason: "Access denied"), .microphonePermissionDenied),
        (AudioDeviceError.streamFailed(device: "mic", reason: "Too large"), .audioDeviceUnavailable(name: "mic")),
        (AudioDeviceError.deviceNotFound(name: "usb"), .audioDeviceUnavailable(name: "usb")),
        (AudioDeviceError.deviceDisappeared(name: "usb"), .audioDeviceUnavailable(name: "usb")),
        (AudioDeviceError.connectionLost(reason: "server exited"), .soundServerUnavailable(reason: "server exited")),
        (
            AudioDeviceError.serverNotResponding(seconds: 2),
            .soundServerUnavailable(reason: "For 2 s the server delivered no audio and answered no request.")
        ),
        (
            CocoaError(.fileReadNoPermission),
            .transcriptionFailed(reason: CocoaError(.fileReadNoPermission).localizedDescription)
        ),
    ]

    @Test("each lower-layer error maps to its session error", arguments: table)
    func mapping(error: any Error & Sendable, expected: SpeechSessionError) {
        #expect(SpeechSessionError.from(error) == expected)
    }

    @Test("a reservation error names the locale the session asked for")
    func reservationLocale() {
        let error = SpeechModelError.tooManyReservedLocales(maximum: 1, reserved: [Locale(identifier: "en")])
        #expect(
            SpeechSessionError.from(error, locale: Locale(identifier: "de"))
                == .modelReservationFailed(Locale(identifier: "de"), error))
    }

    // Real errors, thrown by the layers themselves.

    @Test("the audio reader's error for a missing file becomes audioFileNotFound")
    func missingAudioFile() {
        let missing = URL(fileURLWithPath: "/nonexistent/\(UUID().uuidString).wav")
        #expect(throws: SpeechSessionError.audioFileNotFound(missing)) {
            do { _ = try AudioFileReader(url: missing) } catch { throw SpeechSessionError.from(error) }
        }
    }

    @Test("the audio reader's error for a text file becomes audioFileUnsupportedFormat")
    func textFile() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("not-audio-\(UUID().uuidString).wav")
        try Data("This is not audio, just words.\n".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        var mapped: SpeechSessionError?
        do { _ = try AudioFileReader(url: file) } catch { mapped = SpeechSessionError.from(error) }
        guard case .audioFileUnsupportedFormat(let detail)? = mapped else {
            Issue.record("expected audioFileUnsupportedFormat, got \(String(describing: mapped))")
            return
        }
        #expect(!detail.isEmpty)
    }

    @Test("the engine's error for an empty model folder becomes modelCorrupt naming a file in it")
    func emptyModelFolder() throws {
        let cache = try TemporaryCache()
        var mapped: SpeechSessionError?
        do { _ = try WhisperModel(folder: cache.url) } catch { mapped = SpeechSessionError.from(error) }
        guard case .modelCorrupt(let path, let reason)? = mapped else {
            Issue.record("expected modelCorrupt, got \(String(describing: mapped))")
            return
        }
        #expect(path.hasPrefix(cache.url.path))
        #expect(!reason.isEmpty)
    }

    @Test("ModelManager's errors: an unknown language, a model not installed, an unreachable server")
    func modelManager() async throws {
        let cache = try TemporaryCache()
        let manager = ModelManager(cacheDirectory: cache.url, endpoint: URL(string: "http://127.0.0.1:9")!, timeout: 5)
        let klingon = Locale(identifier: "tlh")
        await #expect(throws: SpeechSessionError.unsupportedLocale(klingon)) {
            do { _ = try await manager.reserve(locale: klingon) } catch { throw SpeechSessionError.from(error) }
        }
        var mapped: SpeechSessionError?
        do { _ = try manager.folder(for: "tiny.en") } catch { mapped = SpeechSessionError.from(error) }
        guard case .modelNotFound(name: "tiny.en", _)? = mapped else {
            Issue.record("expected modelNotFound, got \(String(describing: mapped))")
            return
        }
        await #expect(throws: SpeechSessionError.modelDownloadNoInternet) {
            do { _ = try await manager.install("tiny.en") } catch { throw SpeechSessionError.from(error) }
        }
    }

    @Test("the device layer's error without a sound server becomes soundServerUnavailable")
    func noSoundServer() throws {
        // A socket path where nothing listens: libpulse refuses the connection at once.
        let server = "unix:" + FileManager.default.temporaryDirectory.appendingPathComponent("auralkit-no-server-\(getpid())").path
        do {
            _ = try AudioDevices.list(server: server)
            Issue.record("listing devices on \(server) succeeded")
        } catch {
            let mapped = SpeechSessionError.from(error)
            guard case .soundServerUnavailable(let reason) = mapped else {
                Issue.record("expected soundServerUnavailable, got \(mapped)")
                return
            }
            #expect(reason.contains(server), "\(reason)")
            #expect(mapped.recoverySuggestion?.isEmpty == false)
        }
    }
}
