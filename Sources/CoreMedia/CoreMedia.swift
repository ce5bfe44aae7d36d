// CoreMedia for Linux: the time types of Apple's CoreMedia that the Speech framework's API uses (`CMTime`,
// `CMTimeRange`, `CMTimeScale`, `CMTimeValue`), so that code written for Apple's Speech framework compiles unchanged.
// As Apple's module does, it re-exports Foundation.
@_exported import Foundation
