@testable import aural
import Foundation
import Testing

/// The live view's bytes played into a small model of a VT100-style terminal (auto-wrap with the pending-wrap
/// column, scrolling, the cursor moves and erases the view uses), so the wrapping arithmetic is checked without a
/// terminal. `ListenLiveMicrophoneTests` checks the same in a real one (tmux).
@Suite("Live transcript view")
struct LiveTranscriptViewTests {
    @Test("final words stay, volatile words are dim and replaced, nothing twice, at any width",
          arguments: [12, 17, 20, 33, 80])
    func updates(width: Int) {
        var view = LiveTranscriptView(width: width, height: 12, colors: true)
        var screen = VirtualTerminal(width: width, height: 12)
        let status = "● listening │ tiny.en │ vad off"
        let shownStatus = TextCells.prefix(status, cells: width - 1)
        screen.feed(view.update(status: status))
        let steps: [(final: String, volatile: String)] = [
            ("", " It was"), ("", " It was the best of"), (" It was the best", " of times, it was"),
            ("", " of times, it was the worst of"), (" of times,", " it was the worst of times,"),
            (" it was the worst of times,", ""), ("", " it was the age of wisdom"), (" it was the age of wisdom,", " it"),
        ]
        var finals = ""
        for step in steps {
            screen.feed(view.update(final: step.final, volatile: step.volatile))
            finals += step.final
            #expect(screen.words(dim: false) == words(finals) + words(shownStatus))
            #expect(screen.words(dim: true) == words(step.volatile), "width \(width): \(screen.rows)")
            #expect(screen.rows.last(where: { !$0.isEmpty }).map { String($0) } == shownStatus)
            #expect(screen.rows.allSatisfy { $0.count <= width })
        }
        screen.feed(view.finish())
        #expect(screen.words(dim: false) == words(finals))
        #expect(screen.words(dim: true).isEmpty)
    }

    @Test("a final that ends exactly at the margin, then more text")
    func exactMargin() {
        var view = LiveTranscriptView(width: 10, height: 6, colors: true)
        var screen = VirtualTerminal(width: 10, height: 6)
        screen.feed(view.update(status: "status"))
        screen.feed(view.update(final: " abcde fghi", volatile: " jk"))
        #expect(screen.rows[0] == Array("abcde fghi"))
        screen.feed(view.update(final: " jk", volatile: " lm"))
        #expect(screen.words(dim: false) == ["abcde", "fghi", "jk", "status"])
        #expect(screen.words(dim: true) == ["lm"])
    }

    @Test("volatile text taller than the terminal keeps its end and the status line on screen")
    func tallVolatile() {
        var view = LiveTranscriptView(width: 10, height: 4, colors: true)
        var screen = VirtualTerminal(width: 10, height: 4)
        screen.feed(view.update(status: "status"))
        let long = (1...40).map { " w\($0)" }.joined()
        screen.feed(view.update(final: " start", volatile: long))
        #expect(screen.visibleRows.contains("status"), "\(screen.visibleRows)")
        #expect(screen.visibleRows.joined(separator: " ").contains("w40"), "\(screen.visibleRows)")
        #expect(screen.words(dim: true).first == "…")
        #expect(screen.words(dim: false).first == "start")
        screen.feed(view.update(status: "status 2"))
        #expect(screen.visibleRows.contains("status 2"), "\(screen.visibleRows)")
    }

    @Test("text that scrolls off the top is in the scrollback once")
    func scrolling() {
        var view = LiveTranscriptView(width: 16, height: 5, colors: false)
        var screen = VirtualTerminal(width: 16, height: 5)
        screen.feed(view.update(status: "s"))
        var finals = ""
        for index in 1...60 {
            let word = " word\(index)"
            finals += word
            screen.feed(view.update(final: word, volatile: " next\(index + 1)"))
        }
        screen.feed(view.finish())
        #expect(screen.words(dim: false) == words(finals))
    }

    @Test("a notice takes a line of its own; the text goes on below it")
    func notice() {
        var view = LiveTranscriptView(width: 20, height: 8, colors: true)
        var screen = VirtualTerminal(width: 20, height: 8)
        screen.feed(view.update(final: " one two", volatile: " three"))
        screen.feed(view.notice("— input changed —"))
        screen.feed(view.update(final: " three", volatile: ""))
        screen.feed(view.finish())
        #expect(screen.rows.prefix(3).map { String($0) } == ["one two", "— input changed —", "three"])
    }

    private func words(_ text: String) -> [String] {
        text.split(whereSeparator: \.isWhitespace).map(String.init)
    }
}

/// Enough of a terminal for the view: printable characters (one cell each) with auto-wrap and the pending-wrap
/// state at the right margin, CR, LF (scrolling into a scrollback), CUU/CUD/CUF, ED 0, EL 0 and 2, DECSC/DECRC
/// and SGR 0/2/7/22.
struct VirtualTerminal {
    let width: Int
    let height: Int
    /// Every row: the scrollback, then the screen's `height` rows.
    private var cells: [[(character: Character, dim: Bool)]]
    private var row = 0
    private var column = 0
    private var pendingWrap = false
    private var dim = false
    private var saved = (row: 0, column: 0)

    init(width: Int, height: Int) {
        self.width = width
        self.height = height
        cells = Array(repeating: [], count: height)
    }

    /// The rows' text, scrollback included, trailing blanks removed.
    var rows: [[Character]] {
        var rows = cells.map { row in
            var characters = row.map(\.character)
            while characters.last == " " { characters.removeLast() }
            return characters
        }
        while rows.last?.isEmpty == true && rows.count > height { rows.removeLast() }
        return rows
    }

    /// The words written with (`dim`) or without the dim attribute, in reading order.
    func words(dim: Bool) -> [String] {
        let text = cells.map { row in String(row.map { $0.dim == dim ? $0.character : " " }) }.joined(separator: " ")
        return text.split(separator: " ").map(String.init)
    }

    /// The screen's rows (no scrollback) as text, trailing blanks removed.
    var visibleRows: [String] {
        cells.suffix(height).map { String($0.map(\.character)).replacingOccurrences(of: " +$", with: "", options: .regularExpression) }
    }

    private var top: Int { cells.count - height }

    mutating func feed(_ text: String) {
        var iterator = Array(text)[...]
        while let character = iterator.popFirst() {
            switch character {
            case "\r":
                column = 0
                pendingWrap = false
            case "\n":
                lineFeed()
            case "\r\n":  // one Character in Swift
                column = 0
                lineFeed()
            case "\u{1B}":
                let next = iterator.popFirst()
                if next == "7" { saved = (row, column) }
                if next == "8" {
                    (row, column) = saved
                    pendingWrap = false
                }
                guard next == "[" else { continue }
                var parameter = ""
                while let next = iterator.popFirst() {
                    if next.isLetter {
                        escape(next, Int(parameter.split(separator: ";").first ?? "") ?? 0, parameter)
                        break
                    }
                    parameter.append(next)
                }
            default:
                put(character)
            }
        }
    }

    private mutating func put(_ character: Character) {
        if pendingWrap {
            column = 0
            lineFeed()
        }
        var line = cells[top + row]
        while line.count <= column { line.append((" ", false)) }
        line[column] = (character, dim)
        cells[top + row] = line
        if column == width - 1 {
            pendingWrap = true
        } else {
            column += 1
        }
    }

    private mutating func lineFeed() {
        pendingWrap = false
        if row == height - 1 {
            cells.append([])
        } else {
            row += 1
        }
    }

    private mutating func escape(_ final: Character, _ number: Int, _ parameter: String) {
        let count = max(number, 1)
        switch final {
        case "A": row = max(row - count, 0); pendingWrap = false
        case "B": row = min(row + count, height - 1); pendingWrap = false
        case "C": column = min(column + count, width - 1); pendingWrap = false
        case "J":
            cells[top + row] = Array(cells[top + row].prefix(column))
            for index in (top + row + 1)..<cells.count { cells[index] = [] }
        case "K":
            cells[top + row] = parameter == "2" ? [] : Array(cells[top + row].prefix(column))
        case "m":
            for code in parameter.split(separator: ";").map({ Int($0) ?? 0 }) + (parameter.isEmpty ? [0] : []) {
                if code == 0 || code == 22 { dim = false }
                if code == 2 { dim = true }
            }
        default:
            break
        }
    }
}
