import CZlib

/// The UTF-8 length of `text` over the length of its zlib stream at the default level.
///
/// Equals openai/whisper's `get_compression_ratio` (`len(b) / len(zlib.compress(b))`); values
/// above 2.4 suggest the decoder is repeating itself. Empty text gives 0.
func compressionRatio(_ text: String) -> Double {
    let bytes = Array(text.utf8)
    var compressedLength = compressBound(uLong(bytes.count))
    var compressed = [UInt8](repeating: 0, count: Int(compressedLength))
    let status = compress2(&compressed, &compressedLength, bytes, uLong(bytes.count), Z_DEFAULT_COMPRESSION)
    // compressBound leaves enough room, so zlib can only fail when out of memory.
    guard status == Z_OK, compressedLength > 0 else { return 0 }
    return Double(bytes.count) / Double(compressedLength)
}
