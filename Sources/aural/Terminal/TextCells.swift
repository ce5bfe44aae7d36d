/// How many terminal cells text takes: 0 for combining marks, 2 for East Asian wide characters and emoji, else 1.
///
/// A table of our own over Unicode properties, so the answer does not depend on the C library's locale (glibc's
/// `wcwidth` answers -1 for everything outside ASCII in the "C" locale a program starts in).
enum TextCells {
    /// The cells `character` takes: those of its first scalar (the rest of a grapheme cluster combines with it).
    static func width(of character: Character) -> Int {
        guard let scalar = character.unicodeScalars.first else { return 0 }
        return width(of: scalar)
    }

    /// The cells `text` takes on one line.
    static func width(of text: some StringProtocol) -> Int {
        text.reduce(0) { $0 + width(of: $1) }
    }

    /// `text` cut to at most `cells` cells, whole characters only.
    static func prefix(_ text: String, cells: Int) -> String {
        var used = 0
        var result = ""
        for character in text {
            let width = width(of: character)
            if used + width > cells { break }
            used += width
            result.append(character)
        }
        return result
    }

    private static func width(of scalar: Unicode.Scalar) -> Int {
        let value = scalar.value
        if value < 0x300 { return value < 0x20 || (0x7F..<0xA0).contains(value) ? 0 : 1 }
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format: return 0
        default: break
        }
        if scalar.properties.isEmojiPresentation { return 2 }
        return wideRanges.contains { $0.contains(value) } ? 2 : 1
    }

    /// East Asian Wide and Fullwidth blocks (Unicode's EastAsianWidth W and F, by block).
    private static let wideRanges: [ClosedRange<UInt32>] = [
        0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF,
        0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x20000...0x3FFFD,
    ]
}
