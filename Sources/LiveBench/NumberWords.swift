/// Whole numbers in digits as English words ("23" → "twenty three"), so that a word error rate does not count a
/// number's spelling as an error.
enum NumberWords {
    private static let ones = [
        "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
        "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen",
    ]
    private static let tens = ["", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]

    /// `word`'s English words when it is a whole number in digits below a million, else `word` alone.
    static func spelled(_ word: String) -> [String] {
        guard !word.isEmpty, word.count <= 6, word.allSatisfy(\.isASCII), let value = Int(word), value >= 0 else { return [word] }
        return words(of: value)
    }

    private static func words(of value: Int) -> [String] {
        if value < 20 { return [ones[value]] }
        if value < 100 { return [tens[value / 10]] + (value % 10 == 0 ? [] : [ones[value % 10]]) }
        if value < 1000 { return [ones[value / 100], "hundred"] + (value % 100 == 0 ? [] : words(of: value % 100)) }
        return words(of: value / 1000) + ["thousand"] + (value % 1000 == 0 ? [] : words(of: value % 1000))
    }
}
