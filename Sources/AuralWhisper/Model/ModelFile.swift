import Foundation

/// Reads a CTranslate2 `model.bin` (binary version 4 to 6): named tensors, converted to Float at load, or, for
/// quantized conversions (int8 with a `<name>_scale` per row), kept in int8 for the int8 compute type.
///
/// Layout (little-endian, no alignment): version, spec name and revision, the variables (name, rank, dims,
/// dtype, byte count, payload), then aliases. See `whisper-engine.md` §1.
struct ModelFile: Sendable {
    /// A tensor's element type as CTranslate2 stores it.
    enum DataType: UInt8 {
        case float32 = 0, int8 = 1, int16 = 2, int32 = 3, float16 = 4, bfloat16 = 5

        var size: Int {
            switch self {
            case .float32, .int32: 4
            case .int8: 1
            case .int16, .float16, .bfloat16: 2
            }
        }
    }

    /// One stored variable: its shape, type and where its bytes are in the file.
    struct Variable {
        var shape: [Int]
        var dataType: DataType
        var range: Range<Int>
    }

    let path: String
    let specName: String
    private let data: Data
    private(set) var variables: [String: Variable] = [:]

    /// Parses the file's index; payloads are converted when asked for.
    init(url: URL) throws {
        path = url.path
        guard FileManager.default.fileExists(atPath: url.path) else { throw WhisperModelError.missingFile(path: url.path) }
        data = try Self.map(url)
        var reader = ByteReader(data: data, path: url.path)
        let version = try reader.u32()
        guard (4...6).contains(version) else {
            throw WhisperModelError.corruptModel(
                path: url.path, reason: "binary version \(version) is not a CTranslate2 model version this reader knows (4 to 6)")
        }
        specName = try reader.string()
        _ = try reader.u32()  // spec revision
        let count = try reader.u32()
        guard count < 100_000 else {
            throw WhisperModelError.corruptModel(path: url.path, reason: "implausible variable count \(count)")
        }
        for _ in 0..<count {
            let name = try reader.string()
            let rank = Int(try reader.u8())
            var shape: [Int] = []
            for _ in 0..<rank { shape.append(Int(try reader.u32())) }
            let typeID = try reader.u8()
            guard let type = DataType(rawValue: typeID) else {
                throw WhisperModelError.corruptModel(path: url.path, reason: "variable \(name) has unknown type id \(typeID)")
            }
            let byteCount = Int(try reader.u32())
            let elements = shape.reduce(1, *)
            guard byteCount == elements * type.size else {
                throw WhisperModelError.corruptModel(
                    path: url.path, reason: "variable \(name) declares \(byteCount) bytes for \(elements) elements")
            }
            let start = reader.offset
            try reader.skip(byteCount)
            variables[name] = Variable(shape: shape, dataType: type, range: start..<(start + byteCount))
        }
        let aliasCount = try reader.u32()
        for _ in 0..<aliasCount {
            let alias = try reader.string()
            let target = try reader.string()
            guard let variable = variables[target] else {
                throw WhisperModelError.corruptModel(path: url.path, reason: "alias \(alias) names missing variable \(target)")
            }
            variables[alias] = variable
        }
        guard reader.offset == data.count else {
            throw WhisperModelError.corruptModel(path: url.path, reason: "\(data.count - reader.offset) unexpected bytes after the last variable")
        }
    }

    /// The file mapped read-only. Its pages count toward the process's resident memory once read, so each
    /// accessor below gives back the pages of the variable it has converted (`release`): the file's size never adds
    /// to the engine's peak memory. A page given back and read again comes back from the page cache.
    private static func map(_ url: URL) throws -> Data {
        let descriptor = open(url.path, O_RDONLY)
        guard descriptor >= 0 else {
            throw WhisperModelError.unreadableFile(path: url.path, reason: String(cString: strerror(errno)))
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            throw WhisperModelError.unreadableFile(path: url.path, reason: String(cString: strerror(errno)))
        }
        let size = Int(status.st_size)
        guard size > 0 else { return Data() }
        guard let base = mmap(nil, size, PROT_READ, MAP_PRIVATE, descriptor, 0), base != MAP_FAILED else {
            throw WhisperModelError.unreadableFile(path: url.path, reason: String(cString: strerror(errno)))
        }
        return Data(bytesNoCopy: base, count: size, deallocator: .custom { pointer, count in munmap(pointer, count) })
    }

    /// Gives back the whole pages inside `range` (see `map`).
    private func release(_ range: Range<Int>) {
        data.withUnsafeBytes { raw in
            guard let base = raw.baseAddress else { return }
            let page = Int(sysconf(Int32(_SC_PAGESIZE)))
            let start = (Int(bitPattern: base) + range.lowerBound + page - 1) / page * page
            let end = (Int(bitPattern: base) + range.upperBound) / page * page
            if end > start { madvise(UnsafeMutableRawPointer(bitPattern: start), end - start, MADV_DONTNEED) }
        }
    }

    /// The shape of a variable, or an error naming it when absent.
    func shape(_ name: String) throws -> [Int] {
        try variable(name).shape
    }

    /// Whether the file holds a variable of that name.
    func contains(_ name: String) -> Bool { variables[name] != nil }

    /// A variable as Float32 values, row-major; checks the expected shape when given. A quantized weight (int8
    /// with a `<name>_scale` per row, CTranslate2's int8 conversions) is multiplied back out (value / scale).
    func floats(_ name: String, shape expected: [Int]? = nil) throws -> [Float] {
        let v = try variable(name)
        if let expected, expected != v.shape {
            throw WhisperModelError.corruptModel(path: path, reason: "variable \(name) has shape \(v.shape), expected \(expected)")
        }
        let type = v.dataType
        if type == .int8, let int8 = try int8Weights(name) {
            var out = [Float](repeating: 0, count: int8.outFeatures * int8.inFeatures)
            out.withUnsafeMutableBufferPointer { buffer in
                for row in 0..<int8.outFeatures { int8.dequantize(row: row, into: buffer.baseAddress! + row * int8.inFeatures) }
            }
            return out
        }
        try requireFloats(name, v)
        let count = v.shape.reduce(1, *)
        defer { release(v.range) }
        return data.withUnsafeBytes { raw -> [Float] in
            let base = raw.baseAddress!.advanced(by: v.range.lowerBound)
            return [Float](unsafeUninitializedCapacity: count) { out, initialized in
                if count > 0 { Self.widen(base, type, first: 0, count: count, into: out.baseAddress!) }
                initialized = count
            }
        }
    }

    /// Throws `unsupportedModel` unless `v` is stored as float32, float16 or bfloat16.
    private func requireFloats(_ name: String, _ v: Variable) throws {
        guard v.dataType == .float32 || v.dataType == .float16 || v.dataType == .bfloat16 else {
            throw WhisperModelError.unsupportedModel(
                path: path,
                reason: "variable \(name) is stored as \(v.dataType) without a scale; this engine reads float16, float32, bfloat16 and int8 (scaled per row) weights")
        }
    }

    /// Elements first..<first + count of a float32, float16 or bfloat16 payload at `base`, as Float (exactly).
    private static func widen(
        _ base: UnsafeRawPointer, _ type: DataType, first: Int, count: Int, into out: UnsafeMutablePointer<Float>
    ) {
        switch type {
        case .float16:
            KernelSet.active.table.pointee.half_to_float(base + 2 * first, count, out)
        case .bfloat16:
            for i in 0..<count {
                out[i] = Float(bitPattern: UInt32(base.loadUnaligned(fromByteOffset: 2 * (first + i), as: UInt16.self)) << 16)
            }
        default:
            for i in 0..<count {
                out[i] = Float(bitPattern: base.loadUnaligned(fromByteOffset: 4 * (first + i), as: UInt32.self))
            }
        }
    }

    /// A float16 variable's values exactly as stored, or nil when the variable is stored in another type
    /// (the decoder reads float16 weights directly in its steps; see `SkinnyGEMM`).
    func halves(_ name: String) throws -> HalfTensor? {
        let v = try variable(name)
        guard v.dataType == .float16 else { return nil }
        let count = v.shape.reduce(1, *)
        defer { release(v.range) }
        let tensor = HalfTensor(count: count)
        data.withUnsafeBytes { raw in
            UnsafeMutableRawPointer(tensor.pointer).copyMemory(
                from: raw.baseAddress!.advanced(by: v.range.lowerBound), byteCount: count * 2)
        }
        return tensor
    }

    /// A weight stored in int8 with CTranslate2's per-row `<name>_scale` (float32, 127 / max|row|) as `Int8Weights`
    /// (its rows are the first dimension, the rest flattened); nil when the weight is stored as floats.
    func int8Weights(_ name: String) throws -> Int8Weights? {
        let v = try variable(name)
        guard v.dataType == .int8, v.shape.count >= 2 else { return nil }
        let rows = v.shape[0]
        let columns = v.shape.dropFirst().reduce(1, *)
        let scaleName = name + "_scale"
        guard contains(scaleName) else {
            throw WhisperModelError.corruptModel(path: path, reason: "the int8 variable \(name) has no \(scaleName)")
        }
        let scales = try floats(scaleName, shape: [rows])
        defer { release(v.range) }
        return data.withUnsafeBytes { raw in
            Int8Weights(
                values: UnsafeRawBufferPointer(rebasing: raw[v.range]), scales: scales, outFeatures: rows,
                inFeatures: columns)
        }
    }

    /// A weight [out, …] as `Int8Weights`: as stored when the file holds it in int8, else quantized from its float
    /// values a block of rows at a time (no float copy of the whole matrix is made).
    func quantizedWeights(_ name: String) throws -> Int8Weights {
        if let stored = try int8Weights(name) { return stored }
        let v = try variable(name)
        guard v.shape.count >= 2 else {
            throw WhisperModelError.corruptModel(path: path, reason: "variable \(name) has rank \(v.shape.count), expected 2")
        }
        let columns = v.shape.dropFirst().reduce(1, *)
        try requireFloats(name, v)
        defer { release(v.range) }
        return data.withUnsafeBytes { raw in
            let base = raw.baseAddress!.advanced(by: v.range.lowerBound)
            return Int8Weights(outFeatures: v.shape[0], inFeatures: columns) { rows, out in
                Self.widen(base, v.dataType, first: rows.lowerBound * columns, count: rows.count * columns, into: out)
            }
        }
    }

    /// An integer scalar (flags and head counts are stored as int8/int16/int32).
    func integer(_ name: String) throws -> Int {
        let v = try variable(name)
        return data.withUnsafeBytes { raw -> Int in
            let base = raw.baseAddress!.advanced(by: v.range.lowerBound)
            switch v.dataType {
            case .int8: return Int(base.load(as: Int8.self))
            case .int16: return Int(base.loadUnaligned(as: Int16.self))
            case .int32: return Int(base.loadUnaligned(as: Int32.self))
            case .float32: return Int(Float(bitPattern: base.loadUnaligned(as: UInt32.self)))
            case .float16: return Int(Float(Float16(bitPattern: base.loadUnaligned(as: UInt16.self))))
            case .bfloat16: return Int(Float(bitPattern: UInt32(base.loadUnaligned(as: UInt16.self)) << 16))
            }
        }
    }

    private func variable(_ name: String) throws -> Variable {
        guard let v = variables[name] else {
            throw WhisperModelError.corruptModel(path: path, reason: "variable \(name) is missing")
        }
        return v
    }
}

/// Sequential little-endian reads with bounds checks that report truncation.
private struct ByteReader {
    let data: Data
    let path: String
    var offset = 0

    init(data: Data, path: String) {
        self.data = data
        self.path = path
    }

    private func need(_ n: Int) throws {
        guard n >= 0, offset + n <= data.count else {
            throw WhisperModelError.corruptModel(
                path: path, reason: "the file ends at byte \(data.count) while \(n) more bytes were expected at \(offset) (truncated?)")
        }
    }

    mutating func skip(_ n: Int) throws {
        try need(n)
        offset += n
    }

    mutating func u8() throws -> UInt8 {
        try need(1)
        defer { offset += 1 }
        return data.withUnsafeBytes { $0.load(fromByteOffset: offset, as: UInt8.self) }
    }

    mutating func u16() throws -> UInt16 {
        try need(2)
        defer { offset += 2 }
        return data.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: UInt16.self) }
    }

    mutating func u32() throws -> UInt32 {
        try need(4)
        defer { offset += 4 }
        return data.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: UInt32.self) }
    }

    /// A u16 length (including the NUL), the UTF-8 bytes, then a NUL.
    mutating func string() throws -> String {
        let length = Int(try u16())
        guard length >= 1 else { throw WhisperModelError.corruptModel(path: path, reason: "empty string at byte \(offset)") }
        try need(length)
        let bytes = data[data.startIndex + offset ..< data.startIndex + offset + length - 1]
        offset += length
        guard let s = String(bytes: bytes, encoding: .utf8) else {
            throw WhisperModelError.corruptModel(path: path, reason: "invalid UTF-8 in a name at byte \(offset - length)")
        }
        return s
    }
}
