import Foundation

/// Word error rate for tests: word-level Levenshtein distance over a normalised reference, in percent.
///
/// Normalisation: lower case, every character that is not a letter, a digit or an apostrophe becomes a space, and
/// runs of spaces fold. That is enough to compare two transcriptions of the same audio by the same model (the live
/// and the file path), which is all the tests use it for.
public enum WordErrorRate {
    /// The words of `text` after normalisation.
    public static func words(_ text: String) -> [String] {
        let mapped = text.lowercased().unicodeScalars.map { scalar -> Character in
            CharacterSet.alphanumerics.contains(scalar) || scalar == "'" ? Character(scalar) : " "
        }
        return String(mapped).split(separator: " ").map(String.init)
    }

    /// 100 · (substitutions + deletions + insertions) / reference words.
    public static func percent(reference: String, hypothesis: String) -> Double {
        let r = words(reference)
        let h = words(hypothesis)
        guard !r.isEmpty else { return h.isEmpty ? 0 : 100 }
        var previous = Array(0...h.count)
        for i in 1...r.count {
            var row = [i] + [Int](repeating: 0, count: h.count)
            for j in stride(from: 1, through: h.count, by: 1) {
                row[j] = min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + (r[i - 1] == h[j - 1] ? 0 : 1))
            }
            previous = row
        }
        return 100 * Double(previous[h.count]) / Double(r.count)
    }
}
