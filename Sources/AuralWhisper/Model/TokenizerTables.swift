import Foundation

/// The tables BPE encoding needs beyond the vocabulary: the byte tokens, the merges and the added tokens.
///
/// They come from `tokenizer.json` (a 2 MB JSON file whose parsing was most of a model's load) and are kept in
/// `tokenizer.auralkit`, a small binary file beside it, written on the first load when the folder is writable. A later
/// load reads that file instead when it matches the sizes and modification times of `vocabulary.txt` and
/// `tokenizer.json` and its checksum holds; anything else (no file, another version, a changed source, a damaged
/// file) parses `tokenizer.json` again.
struct TokenizerTables: Sendable {
    /// One BPE merge: its priority and the token it produces.
    struct Merge: Sendable, Equatable {
        /// Position in the merges list; lower merges first.
        var rank: Int32
        /// Id of the merged token.
        var id: Int32
    }

    /// The id of the one-byte token for each byte value, the starting symbols of BPE.
    let byteTokens: [Int32]
    /// `Tokenizer.mergeKey(left, right)` of every merge, ascending.
    let mergeKeys: [UInt64]
    /// The merge of each key in `mergeKeys`.
    let merges: [Merge]
    /// The added tokens of `tokenizer.json` ("<|endoftext|>", "<|en|>", …): id and text.
    let addedTokens: [(id: Int, content: String)]

    /// The name of the binary copy beside `tokenizer.json`.
    static let cacheName = "tokenizer.auralkit"

    /// The merge of the pair `key`, by binary search.
    func merge(_ key: UInt64) -> Merge? {
        var low = 0
        var high = mergeKeys.count
        while low < high {
            let middle = (low + high) / 2
            if mergeKeys[middle] < key { low = middle + 1 } else { high = middle }
        }
        return low < mergeKeys.count && mergeKeys[low] == key ? merges[low] : nil
    }

    /// The tables of `folder`: from its binary copy when that is current, else parsed from `tokenizer.json` (and the
    /// copy written, when the folder allows).
    /// - Parameter tokens: the vocabulary, in id order.
    static func load(folder: URL, tokens: [String]) throws -> TokenizerTables {
        let vocabularyURL = folder.appendingPathComponent("vocabulary.txt")
        let tokenizerURL = folder.appendingPathComponent("tokenizer.json")
        let cacheURL = folder.appendingPathComponent(cacheName)
        let fingerprint = Fingerprint(vocabulary: vocabularyURL, tokenizer: tokenizerURL)
        if let fingerprint, let data = try? Data(contentsOf: cacheURL),
           let tables = TokenizerTables(data: data, fingerprint: fingerprint, vocabularySize: tokens.count) {
            return tables
        }
        let tables = try TokenizerTables(parsing: tokenizerURL, vocabulary: vocabularyURL, tokens: tokens)
        if let fingerprint {
            try? Data(tables.encoded(fingerprint: fingerprint)).write(to: cacheURL, options: .atomic)
        }
        return tables
    }

    // MARK: - From tokenizer.json

    /// Parses `tokenizer.json` against the vocabulary.
    private init(parsing tokenizerURL: URL, vocabulary vocabularyURL: URL, tokens: [String]) throws {
        let ids = Dictionary(tokens.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        var byteTokens: [Int32] = []
        for scalar in Tokenizer.byteTable {
            guard let id = ids[String(scalar)] else {
                throw WhisperModelError.corruptModel(
                    path: vocabularyURL.path, reason: "The vocabulary has no token for byte character \"\(scalar)\".")
            }
            byteTokens.append(Int32(id))
        }
        let file = try TokenizerFile.read(tokenizerURL)
        var byKey: [UInt64: Merge] = [:]
        byKey.reserveCapacity(file.model.merges.count)
        for (rank, merge) in file.model.merges.enumerated() {
            guard let left = ids[merge.left], let right = ids[merge.right], let merged = ids[merge.left + merge.right]
            else {
                throw WhisperModelError.corruptModel(
                    path: tokenizerURL.path,
                    reason: "Merge \(rank) (\"\(merge.left) \(merge.right)\") uses a token missing from vocabulary.txt.")
            }
            let key = Tokenizer.mergeKey(Int32(left), Int32(right))
            if byKey[key] == nil {
                byKey[key] = Merge(rank: Int32(rank), id: Int32(merged))
            }
        }
        let sorted = byKey.sorted { $0.key < $1.key }
        self.byteTokens = byteTokens
        mergeKeys = sorted.map(\.key)
        merges = sorted.map(\.value)
        addedTokens = (file.addedTokens ?? []).map { ($0.id, $0.content) }
    }

    // MARK: - The binary copy

    /// What the copy was made from: the sizes and modification times (ns) of `vocabulary.txt` and `tokenizer.json`.
    struct Fingerprint {
        var values: [Int64]

        /// Nil when either file cannot be examined.
        init?(vocabulary: URL, tokenizer: URL) {
            var values: [Int64] = []
            for url in [vocabulary, tokenizer] {
                var status = stat()
                guard stat(url.path, &status) == 0 else { return nil }
                values += [Int64(status.st_size), Int64(status.st_mtim.tv_sec) * 1_000_000_000 + Int64(status.st_mtim.tv_nsec)]
            }
            self.values = values
        }
    }

    /// Magic and format version at the start of the copy.
    private static let magic: [UInt8] = Array("AKTOKv1\n".utf8)

    /// The copy's bytes: magic, fingerprint, byte tokens, merges, added tokens, then an FNV-1a checksum of all before it.
    func encoded(fingerprint: Fingerprint) -> [UInt8] {
        var out = Self.magic
        func put<T: FixedWidthInteger>(_ value: T) { withUnsafeBytes(of: value.littleEndian) { out += $0 } }
        fingerprint.values.forEach(put)
        byteTokens.forEach(put)
        put(UInt32(mergeKeys.count))
        mergeKeys.forEach(put)
        for merge in merges {
            put(merge.rank)
            put(merge.id)
        }
        put(UInt32(addedTokens.count))
        for token in addedTokens {
            put(Int64(token.id))
            put(UInt32(token.content.utf8.count))
            out += token.content.utf8
        }
        put(Self.checksum(out[...]))
        return out
    }

    /// Reads a copy; nil unless it is whole, of this version, made from files with `fingerprint`, and every id in it
    /// is one of the vocabulary's `vocabularySize` tokens.
    private init?(data: Data, fingerprint: Fingerprint, vocabularySize: Int) {
        let bytes = [UInt8](data)
        guard bytes.count > Self.magic.count + 8, bytes.starts(with: Self.magic) else { return nil }
        let bodyEnd = bytes.count - 8
        var trailer = Reader(bytes: bytes, position: bodyEnd, end: bytes.count)
        guard let stored: UInt64 = trailer.read(), stored == Self.checksum(bytes[..<bodyEnd]) else { return nil }
        var reader = Reader(bytes: bytes, position: Self.magic.count, end: bodyEnd)
        var values: [Int64] = []
        for _ in fingerprint.values {
            guard let value: Int64 = reader.read() else { return nil }
            values.append(value)
        }
        guard values == fingerprint.values else { return nil }
        var byteTokens: [Int32] = []
        for _ in 0..<256 {
            guard let id: Int32 = reader.read() else { return nil }
            byteTokens.append(id)
        }
        guard let mergeCount: UInt32 = reader.read() else { return nil }
        var keys: [UInt64] = []
        keys.reserveCapacity(Int(mergeCount))
        for _ in 0..<mergeCount {
            guard let key: UInt64 = reader.read() else { return nil }
            keys.append(key)
        }
        var merges: [Merge] = []
        merges.reserveCapacity(Int(mergeCount))
        for _ in 0..<mergeCount {
            guard let rank: Int32 = reader.read(), let id: Int32 = reader.read() else { return nil }
            merges.append(Merge(rank: rank, id: id))
        }
        guard let addedCount: UInt32 = reader.read() else { return nil }
        var added: [(id: Int, content: String)] = []
        for _ in 0..<addedCount {
            guard let id: Int64 = reader.read(), let length: UInt32 = reader.read(), let text = reader.bytes(Int(length))
            else { return nil }
            added.append((Int(id), String(decoding: text, as: UTF8.self)))
        }
        let known = 0..<Int32(vocabularySize)
        guard reader.position == bodyEnd, zip(keys, keys.dropFirst()).allSatisfy({ $0 < $1 }),
              byteTokens.allSatisfy(known.contains), merges.allSatisfy({ known.contains($0.id) })
        else { return nil }
        self.byteTokens = byteTokens
        mergeKeys = keys
        self.merges = merges
        addedTokens = added
    }

    /// 64-bit FNV-1a.
    private static func checksum(_ bytes: ArraySlice<UInt8>) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
        }
        return hash
    }

    /// Little-endian reading from a byte array, up to `end`.
    private struct Reader {
        let bytes: [UInt8]
        var position: Int
        let end: Int

        mutating func read<T: FixedWidthInteger>() -> T? {
            let size = MemoryLayout<T>.size
            guard position + size <= end else { return nil }
            var value: T = 0
            for index in 0..<size { value |= T(truncatingIfNeeded: bytes[position + index]) << (8 * index) }
            position += size
            return value
        }

        mutating func bytes(_ count: Int) -> ArraySlice<UInt8>? {
            guard count >= 0, position + count <= end else { return nil }
            defer { position += count }
            return bytes[position..<(position + count)]
        }
    }
}

/// The parts of `tokenizer.json` the tokenizer uses.
private struct TokenizerFile: Decodable {
    /// The `model` object.
    struct Model: Decodable {
        /// The BPE merges in rank order.
        var merges: [MergeRule]

        enum CodingKeys: String, CodingKey {
            case merges
        }

        /// Reads the merges as a list of strings first, the form of Whisper's files, and as a list of pairs
        /// otherwise. Decoding each element on its own as either form made reading the file 0.10–0.11 s, the
        /// largest part of the tokenizer's load; this is 0.06–0.10 s (this machine, 11 loads each).
        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            func rule(_ rank: Int, _ parts: [String]) throws -> MergeRule {
                guard parts.count == 2 else {
                    throw DecodingError.dataCorruptedError(
                        forKey: .merges, in: container, debugDescription: "Merge \(rank) has \(parts.count) parts, not two.")
                }
                return MergeRule(left: parts[0], right: parts[1])
            }
            if let texts = try? container.decode([String].self, forKey: .merges) {
                merges = try texts.enumerated().map { rank, text in
                    try rule(rank, text.split(separator: " ", omittingEmptySubsequences: false).map(String.init))
                }
            } else {
                merges = try container.decode([[String]].self, forKey: .merges).enumerated().map(rule)
            }
        }
    }

    /// One entry of `added_tokens`.
    struct Added: Decodable {
        /// The token's id.
        var id: Int
        /// The token's text.
        var content: String
    }

    /// The BPE model.
    var model: Model
    /// Tokens matched in raw text before pre-tokenization.
    var addedTokens: [Added]?

    /// JSON keys.
    enum CodingKeys: String, CodingKey {
        case model
        case addedTokens = "added_tokens"
    }
}

/// A merge: the left and right token texts, written as "a b" or as ["a", "b"] in the file.
private struct MergeRule {
    /// The left token.
    var left: String
    /// The right token.
    var right: String
}

extension TokenizerFile {
    /// Reads and decodes `tokenizer.json`.
    static func read(_ url: URL) throws -> TokenizerFile {
        let data = try Tokenizer.readFile(url)
        do {
            return try JSONDecoder().decode(TokenizerFile.self, from: data)
        } catch {
            throw WhisperModelError.corruptModel(path: url.path, reason: "tokenizer.json is not a BPE tokenizer: \(error)")
        }
    }
}
