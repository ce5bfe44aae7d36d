// AVFoundation for Linux: the audio part of Apple's AVFoundation (AVFAudio) that speech apps use, over AuralAudio
// (FFmpeg for files, PulseAudio for devices), so that code written for Apple's Speech and AVFoundation compiles
// unchanged. As Apple's module does, it re-exports Foundation and CoreMedia: Apple's sample code uses
// `AVAudioFormat` and `CMTime` with only `import Speech`.
@_exported import CoreMedia
@_exported import Foundation
