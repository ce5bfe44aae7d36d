import Foundation

/// What a display showed after each update: the final text so far, then the volatile text, each as delivered (a word
/// starts with a space; punctuation a later update put after a final word does not, and joins it).
struct Display {
    /// Seconds of audio (from the recording's start) at which the display appeared.
    var time: Double
    /// The final text as delivered.
    let finalText: String
    /// The volatile text after it.
    let volatileText: String
    /// The final text's words.
    let finalWords: [String]
    /// The words of the final text followed by the volatile text.
    let all: [String]

    init(time: Double, finalText: String, volatileText: String) {
        self.time = time
        self.finalText = finalText
        self.volatileText = volatileText
        finalWords = Self.words(finalText)
        all = Self.words(finalText + volatileText)
    }

    private static func words(_ text: String) -> [String] { text.split(whereSeparator: \.isWhitespace).map(String.init) }
}

/// Per-word latency, flicker and WER of one replay, measured as streaming.md §6 describes: each final word is
/// aligned to the offline transcription's word (with its forced-aligned end time); latency runs from that end to
/// the word's first appearance on the display and to its commit.
struct LatencyReport {
    /// Seconds from a word's end to its first appearance.
    var firstAppearance: [Double] = []
    /// Seconds from a word's end to its final result.
    var commit: [Double] = []
    /// Seconds from a word's end to the display from which it is shown as it ends up and never changes.
    var stable: [Double] = []
    /// Seconds from the end of a phrase's last word to the phrase's final result.
    var phraseFinal: [Double] = []
    var erasedWords = 0
    var finalWordCount = 0
    var liveWER = 0.0
    var fileWER = 0.0

    /// How long a display must stay to be seen: one frame at 30 frames a second.
    static let frameSeconds = 1.0 / 30

    /// The flicker of the volatile text: words erased from the end of one display to reach the common prefix with the
    /// next, summed, over the final word count (normalized erasure, Arivazhagan et al. 2020). Only displays that
    /// stay for a frame count.
    var normalizedErasure: Double { finalWordCount == 0 ? 0 : Double(erasedWords) / Double(finalWordCount) }

    init(displays: [Display], reference: [(word: String, end: Double)], referenceText: String, fileText: String) {
        let finals = displays.last?.finalWords ?? []
        finalWordCount = finals.count
        liveWER = WER.percent(reference: referenceText, hypothesis: finals.joined(separator: " "))
        fileWER = WER.percent(reference: referenceText, hypothesis: fileText)
        // A display replaced within a frame (1/30 s) is never seen: a live session yields an update's final and
        // volatile results back to back, and between them the display holds the final with no volatile words.
        let seen = zip(displays, displays.dropFirst()).filter { $1.time - $0.time >= Self.frameSeconds }.map(\.0) + displays.suffix(1)
        for (previous, next) in zip(seen, seen.dropFirst()) {
            let a = previous.all.map(WER.normalize)
            let b = next.all.map(WER.normalize)
            var common = 0
            while common < a.count, common < b.count, a[common] == b[common] { common += 1 }
            erasedWords += a.count - common
        }
        let pairs = WER.alignment(finals.map(WER.normalize), reference.map { WER.normalize($0.word) })
        let phraseEnds = Self.phraseEnds(displays)
        for (i, j) in pairs {
            if let time = phraseEnds[i] { phraseFinal.append(max(0, time - reference[j].end)) }
            if let time = Self.stableTime(of: i, in: displays) { stable.append(max(0, time - reference[j].end)) }
            let word = WER.normalize(finals[i])
            guard let committed = displays.first(where: { $0.finalWords.count > i }) else { continue }
            commit.append(max(0, committed.time - reference[j].end))
            if let shown = displays.first(where: { $0.all.count > i && WER.normalize($0.all[i]) == word }) {
                firstAppearance.append(max(0, min(shown.time, committed.time) - reference[j].end))
            }
        }
    }
}

extension LatencyReport {
    /// The three latencies of a report, or of several together.
    struct Figures {
        var firstAppearance: [Double]
        var stable: [Double]
        var phraseFinal: [Double]
    }

    var figures: Figures { Figures(firstAppearance: firstAppearance, stable: stable, phraseFinal: phraseFinal) }

    /// For the last word of each final result (by its index in the final text), the time that result was shown.
    static func phraseEnds(_ displays: [Display]) -> [Int: Double] {
        var ends: [Int: Double] = [:]
        var count = 0
        for display in displays where display.finalWords.count > count {
            count = display.finalWords.count
            ends[count - 1] = display.time
        }
        return ends
    }

    /// When word `index` of the final text became stable: the first display of the last run of displays that all
    /// show it as the final text has it.
    static func stableTime(of index: Int, in displays: [Display]) -> Double? {
        guard let final = displays.last?.finalWords, index < final.count else { return nil }
        let word = WER.normalize(final[index])
        var time: Double?
        for display in displays.reversed() {
            guard display.all.count > index, WER.normalize(display.all[index]) == word else { break }
            time = display.time
        }
        return time
    }
}

/// Word error rate with a plain normaliser (lower case, letters, digits and apostrophes), where a whole number in
/// digits counts as its English words: a decode may write "1, 2, 3" for "one, two, three", as Whisper's English
/// normaliser (which writes both as digits) also forgives.
enum WER {
    static func normalize(_ word: String) -> String {
        String(word.lowercased().unicodeScalars.filter { CharacterSet.alphanumerics.contains($0) || $0 == "'" }.map(Character.init))
    }

    static func words(_ text: String) -> [String] {
        text.split(whereSeparator: { $0.isWhitespace }).map { normalize(String($0)) }.filter { !$0.isEmpty }
    }

    static func percent(reference: String, hypothesis: String) -> Double {
        let r = words(reference).flatMap(NumberWords.spelled)
        let h = words(hypothesis).flatMap(NumberWords.spelled)
        guard !r.isEmpty else { return h.isEmpty ? 0 : 100 }
        return 100 * Double(distance(r, h)) / Double(r.count)
    }

    static func distance(_ a: [String], _ b: [String]) -> Int {
        var previous = Array(0...b.count)
        for i in stride(from: 1, through: a.count, by: 1) {
            var row = [i] + [Int](repeating: 0, count: b.count)
            for j in stride(from: 1, through: b.count, by: 1) {
                row[j] = min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = row
        }
        return previous[b.count]
    }

    /// Index pairs of equal words on a minimum-edit alignment of `a` to `b`.
    static func alignment(_ a: [String], _ b: [String]) -> [(Int, Int)] {
        let n = a.count, m = b.count
        var cost = [[Int]](repeating: [Int](repeating: 0, count: m + 1), count: n + 1)
        for i in 0...n { cost[i][0] = i }
        for j in 0...m { cost[0][j] = j }
        if n > 0 && m > 0 {
            for i in 1...n {
                for j in 1...m {
                    cost[i][j] = min(cost[i - 1][j] + 1, cost[i][j - 1] + 1, cost[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
                }
            }
        }
        var pairs: [(Int, Int)] = []
        var i = n, j = m
        while i > 0 && j > 0 {
            if a[i - 1] == b[j - 1] && cost[i][j] == cost[i - 1][j - 1] {
                pairs.append((i - 1, j - 1))
                i -= 1
                j -= 1
            } else if cost[i][j] == cost[i - 1][j - 1] + 1 {
                i -= 1
                j -= 1
            } else if cost[i][j] == cost[i - 1][j] + 1 {
                i -= 1
            } else {
                j -= 1
            }
        }
        return pairs.reversed()
    }
}

/// Mean and percentiles of a list of seconds.
struct Summary {
    let values: [Double]
    var mean: Double { values.isEmpty ? .nan : values.reduce(0, +) / Double(values.count) }
    func percentile(_ p: Double) -> Double {
        guard !values.isEmpty else { return .nan }
        let sorted = values.sorted()
        let index = min(sorted.count - 1, max(0, Int((p / 100 * Double(sorted.count - 1)).rounded())))
        return sorted[index]
    }
}
