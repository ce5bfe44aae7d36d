import Foundation

/// Why audio could not be read or converted.
///
/// Each case carries the evidence (the path, the format code, the value that was wrong), and every case
/// has a description, a failure reason and a recovery suggestion through `LocalizedError`.
public enum AudioSourceError: Error, Sendable, Equatable {
    /// Nothing exists at the path.
    case fileNotFound(path: String)
    /// The file exists but could not be read (permissions, a directory, an I/O error).
    case unreadableFile(path: String, reason: String)
    /// The file has no bytes at all.
    case emptyFile(path: String)
    /// The file is not audio or video in any format FFmpeg reads; `reason` says what was found instead.
    case notAudio(path: String, reason: String)
    /// The file ends inside its header, before any audio data.
    case truncated(path: String)
    /// The header is complete but describes impossible audio (zero channels, zero sample rate, …).
    case invalidHeader(path: String, reason: String)
    /// The file is a WAV file whose sample encoding is not supported, such as ADPCM; `format` names it.
    case unsupportedEncoding(path: String, format: String)
    /// The converter cannot take this input (a sample rate or channel count out of range, or libswresample
    /// refused it); `reason` says which.
    case conversionFailed(reason: String)
    /// The file is a media file but has no audio stream (a silent video, an image); `streams` lists the
    /// kinds of stream it has ("video", "subtitle", …).
    case noAudioTrack(path: String, streams: [String])
    /// The file looks like a media file but FFmpeg cannot read it: a damaged or cut-off header, or audio
    /// data that does not decode at all; `reason` says where it failed.
    case corruptFile(path: String, reason: String)
    /// The audio is in a codec the installed FFmpeg libraries cannot decode; `codec` is FFmpeg's name for it.
    case unsupportedCodec(path: String, codec: String)
}

extension AudioSourceError: LocalizedError {
    /// One sentence saying what went wrong, naming the file.
    public var errorDescription: String? {
        switch self {
        case .fileNotFound(let path):
            return "No audio file at \(path)."
        case .unreadableFile(let path, _):
            return "Could not read \(path)."
        case .emptyFile(let path):
            return "The audio file \(path) is empty."
        case .notAudio(let path, _):
            return "\(path) is not an audio file."
        case .truncated(let path):
            return "The WAV file \(path) is cut off inside its header."
        case .invalidHeader(let path, _):
            return "The WAV file \(path) has an invalid header."
        case .unsupportedEncoding(let path, let format):
            return "The WAV file \(path) uses an unsupported encoding: \(format)."
        case .conversionFailed:
            return "The audio could not be converted to 16 kHz mono."
        case .noAudioTrack(let path, _):
            return "\(path) has no audio track."
        case .corruptFile(let path, _):
            return "The media file \(path) is damaged or incomplete."
        case .unsupportedCodec(let path, let codec):
            return "The audio of \(path) is in a codec that cannot be decoded: \(codec)."
        }
    }

    /// The evidence: what was found where something else was expected.
    public var failureReason: String? {
        switch self {
        case .fileNotFound(let path):
            return "The path \(path) does not exist."
        case .unreadableFile(_, let reason):
            return reason
        case .emptyFile:
            return "The file has 0 bytes."
        case .notAudio(_, let reason):
            return reason
        case .truncated:
            return "The file ends before the \"fmt \" and \"data\" chunks are complete."
        case .invalidHeader(_, let reason):
            return reason
        case .unsupportedEncoding:
            return "Only PCM (8-bit unsigned, 16/24/32-bit signed) and IEEE float (32/64-bit) WAV files are read."
        case .conversionFailed(let reason):
            return reason
        case .noAudioTrack(_, let streams):
            return streams.isEmpty
                ? "The file has no streams at all."
                : "Its streams are: \(streams.joined(separator: ", ")); none of them is audio."
        case .corruptFile(_, let reason):
            return reason
        case .unsupportedCodec(_, let codec):
            return "The installed FFmpeg libraries have no decoder for \(codec)."
        }
    }

    /// What the user can do about it.
    public var recoverySuggestion: String? {
        switch self {
        case .fileNotFound:
            return "Check the path and its spelling."
        case .unreadableFile:
            return "Check that the path is a regular file and that you may read it."
        case .emptyFile, .truncated:
            return "The recording was probably interrupted; record or copy the file again."
        case .notAudio:
            return "Check that this is the recording you meant; audio and video files in any format FFmpeg reads (WAV, FLAC, MP3, Ogg, M4A, WebM, MP4, MKV, …) are accepted."
        case .invalidHeader:
            return "Re-export the file as a standard WAV file, for example: ffmpeg -i input output.wav"
        case .unsupportedEncoding:
            return "Convert it to 16-bit PCM, for example: ffmpeg -i input -c:a pcm_s16le output.wav"
        case .conversionFailed:
            return "Give audio with a positive sample rate and between 1 and 64 channels."
        case .noAudioTrack:
            return "Choose a file that contains sound; for a video, check that it was recorded or exported with audio."
        case .corruptFile:
            return "The file was probably cut off while copying or recording, or is not the format its name says; copy or export it again. To rescue what is readable: ffmpeg -i input -vn output.wav"
        case .unsupportedCodec:
            return "Convert the audio to a common codec first, for example: ffmpeg -i input -vn -c:a pcm_s16le output.wav"
        }
    }
}
