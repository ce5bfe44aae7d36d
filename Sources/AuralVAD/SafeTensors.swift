import Foundation

/// The tensors of a safetensors file: an 8-byte little-endian header length, a JSON header naming each tensor's
/// dtype, shape and byte range, then the raw little-endian data (the format of Hugging Face's `safetensors`).
///
/// Float32 and float16 tensors are read, both as `[Float]`; the header and every byte range are checked against the
/// file's length before any data is read.
struct SafeTensors {
    /// One tensor's entry in the header.
    struct Entry {
        let dtype: String
        let shape: [Int]
        let range: Range<Int>  // in the data section
    }

    let path: String
    let entries: [String: Entry]
    private let data: Data
    private let dataStart: Int

    /// Reads and checks the header of the file at `url`.
    /// - Throws: `SileroVADError.modelNotFound`, `.unreadableModel` or `.invalidModel`.
    init(contentsOf url: URL) throws {
        path = url.path
        guard FileManager.default.fileExists(atPath: url.path) else { throw SileroVADError.modelNotFound(path: url.path) }
        do {
            data = try Data(contentsOf: url, options: .mappedIfSafe)
        } catch {
            throw SileroVADError.unreadableModel(path: url.path, reason: error.localizedDescription)
        }
        guard data.count >= 8 else {
            throw SileroVADError.invalidModel(path: path, reason: "the file has \(data.count) bytes, too few for a safetensors header")
        }
        let headerLength = data.prefix(8).enumerated().reduce(UInt64(0)) { $0 | UInt64($1.element) << (8 * UInt64($1.offset)) }
        guard headerLength <= UInt64(data.count - 8) else {
            throw SileroVADError.invalidModel(
                path: path, reason: "the header claims \(headerLength) bytes but the file has \(data.count - 8) after the length")
        }
        dataStart = 8 + Int(headerLength)
        let header = data.subdata(in: 8..<dataStart)
        guard let object = try? JSONSerialization.jsonObject(with: header), let dictionary = object as? [String: Any] else {
            throw SileroVADError.invalidModel(path: path, reason: "the header is not a JSON object")
        }
        var entries: [String: Entry] = [:]
        let available = data.count - dataStart
        for (name, value) in dictionary where name != "__metadata__" {
            guard let fields = value as? [String: Any], let dtype = fields["dtype"] as? String,
                let shape = fields["shape"] as? [Int], let offsets = fields["data_offsets"] as? [Int], offsets.count == 2,
                offsets[0] >= 0, offsets[0] <= offsets[1], offsets[1] <= available
            else {
                throw SileroVADError.invalidModel(path: path, reason: "the header entry of \(name) is malformed or points past the end of the file")
            }
            entries[name] = Entry(dtype: dtype, shape: shape, range: offsets[0]..<offsets[1])
        }
        self.entries = entries
    }

    /// The tensor `name` as floats, checked to have `shape`.
    /// - Throws: `SileroVADError.invalidModel` when it is missing, has another shape, another dtype than F32 or F16,
    ///   or a byte range of the wrong length.
    func floats(_ name: String, shape: [Int]) throws -> [Float] {
        guard let entry = entries[name] else { throw SileroVADError.invalidModel(path: path, reason: "the tensor \(name) is missing") }
        guard entry.shape == shape else {
            throw SileroVADError.invalidModel(path: path, reason: "\(name) has shape \(entry.shape), expected \(shape)")
        }
        let count = shape.reduce(1, *)
        let width: Int
        switch entry.dtype {
        case "F32": width = 4
        case "F16": width = 2
        default: throw SileroVADError.invalidModel(path: path, reason: "\(name) is \(entry.dtype); only F32 and F16 are read")
        }
        guard entry.range.count == count * width else {
            throw SileroVADError.invalidModel(
                path: path, reason: "\(name) holds \(entry.range.count) bytes, expected \(count * width) for \(entry.dtype) \(shape)")
        }
        let start = dataStart + entry.range.lowerBound
        return data.withUnsafeBytes { raw in
            (0..<count).map { i in
                if width == 4 {
                    return Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: start + 4 * i, as: UInt32.self)))
                }
                return Float(Float16(bitPattern: UInt16(littleEndian: raw.loadUnaligned(fromByteOffset: start + 2 * i, as: UInt16.self))))
            }
        }
    }
}
