/// The picture `aural listen` keeps in a terminal: final text in the normal colour, then the volatile text (dim),
/// then a status line. Each change returns the bytes that bring the screen up to date; the caller writes them.
///
/// ```swift
/// var view = LiveTranscriptView(width: 80, height: 24, colors: true)
/// write(view.update(status: "listening"))
/// write(view.update(volatile: " It was the best"))        // dim, at the end of the text
/// write(view.update(final: " It was the best of times,", volatile: ""))
/// write(view.finish())
/// ```
///
/// Only the tail is ever rewritten. The cursor rests where the final text ends (the *origin*); an update erases
/// the tail drawn before (the rest of the origin's row and the rows down to the status line), writes the new final words once, then the volatile words and
/// the status line, and moves the cursor back up to the new origin. Final text is never cleared or written twice,
/// and the terminal's scrollback keeps it. Words are wrapped at the terminal width by the view itself (a word
/// that does not fit starts the next line), so the view always knows on which row and column each cell lands; a
/// word wider than the terminal is left to the terminal's own wrapping, which the view follows cell by cell.
struct LiveTranscriptView {
    /// Columns of the terminal (at least 2).
    private(set) var width: Int
    /// Rows of the terminal (at least 2); the volatile text is cut at the front to keep the tail on screen.
    private(set) var height: Int
    /// Whether to use SGR attributes (dim volatile text, reverse-video status line).
    let colors: Bool

    /// The column where final text ends, on the origin row (0 ..< width).
    private var column = 0
    /// Rows from the origin to the status line as last drawn.
    private var statusRow = 1
    private var volatileText = ""
    private var statusText = ""
    /// Whether the tail has been drawn since the view began.
    private var hasTail = false

    init(width: Int, height: Int, colors: Bool) {
        self.width = max(width, 2)
        self.height = max(height, 2)
        self.colors = colors
    }

    // MARK: - Updates

    /// Appends `final` words to the text and shows `volatile` after them (replacing the previous volatile text).
    mutating func update(final: String = "", volatile: String) -> String {
        volatileText = volatile
        var out = eraseTail()
        if !final.isEmpty {
            if colors { out += Self.normal }
            let laid = layout(final, from: column)
            out += laid.text
            column = laid.column
            if column == width {
                // The last word ends at the margin: go to the next line now, so the origin is a cell the cursor
                // can be moved back to.
                out += "\r\n"
                column = 0
            }
        }
        return out + drawTail()
    }

    /// Replaces the volatile text only.
    mutating func update(volatile: String) -> String {
        update(final: "", volatile: volatile)
    }

    /// Replaces the status line only (rewrites that one row).
    mutating func update(status: String) -> String {
        statusText = status
        guard hasTail else { return Self.eraseBelow + drawTail() }
        return "\r" + Self.down(statusRow) + "\u{1B}[2K" + styledStatus() + "\r" + Self.up(statusRow) + Self.right(column)
    }

    /// Writes `notice` on a line of its own above the tail (kept in the scrollback), then the tail again; the
    /// final text goes on in the next line.
    mutating func notice(_ notice: String) -> String {
        var out = eraseTail()
        if column > 0 { out += "\r\n" }
        let text = TextCells.prefix(notice, cells: width - 1)
        out += (colors ? Self.dim + text + Self.normal : text) + "\r\n"
        column = 0
        return out + drawTail()
    }

    /// Takes a new terminal size. The terminal may have reflowed the lines, so the cursor's column is no longer
    /// known: the tail is erased and the text goes on in a new line.
    mutating func resize(width: Int, height: Int) -> String {
        guard width != self.width || height != self.height else { return "" }
        self.width = max(width, 2)
        self.height = max(height, 2)
        var out = Self.eraseBelow
        if column > 0 { out += "\r\n" }
        column = 0
        return out + drawTail()
    }

    /// Erases the volatile text and the status line and ends the text's line; the cursor is left at the start of
    /// the next line, for the shell.
    mutating func finish() -> String {
        var out = eraseTail()
        if column > 0 { out += "\r\n" }
        column = 0
        if colors { out += Self.normal }
        return out
    }

    // MARK: - Drawing

    /// Erases the tail as last drawn, from the origin: the rest of the origin's row, then each row down to the
    /// status line, and puts the cursor back.
    ///
    /// Not `ESC [ J`: tmux (`scroll-on-clear`, on by default) moves the whole screen into its scrollback when that
    /// is sent at the top-left corner, which is where the origin is when `aural listen` starts in a new window, so
    /// the scrollback would keep a copy of the tail.
    private func eraseTail() -> String {
        guard hasTail else { return Self.eraseBelow }
        return "\u{1B}[K" + Self.saveCursor + String(repeating: "\u{1B}[1B\u{1B}[2K", count: statusRow) + Self.restoreCursor
    }

    /// Draws the volatile text and the status line from the origin and returns the cursor to the origin.
    private mutating func drawTail() -> String {
        hasTail = true
        var shown = volatileText
        var laid = layout(shown, from: column)
        // Keep the volatile text, the status line and the origin's row on screen: drop its first words (shown
        // as "…") until it fits.
        var words = Self.words(volatileText)
        while laid.rows + 2 > height, !words.isEmpty {
            words.removeFirst()
            shown = " …" + words.joined()
            laid = layout(shown, from: column)
        }
        var out = ""
        if !shown.isEmpty { out += colors ? Self.dim + laid.text + Self.normal : laid.text }
        statusRow = laid.rows + 1
        out += "\r\n" + styledStatus()
        return out + "\r" + Self.up(statusRow) + Self.right(column)
    }

    private func styledStatus() -> String {
        let text = TextCells.prefix(statusText, cells: width - 1)
        return colors ? Self.reverse + text + Self.normal : text
    }

    /// `text` laid out from `column`: a word that does not fit in what is left of the line starts the next one
    /// (without its leading space); a space at the start of a line is dropped. Returns the text to write, with
    /// the line breaks, the column after the last cell (`width` when it ends at the margin) and the rows moved
    /// down.
    private func layout(_ text: String, from column: Int) -> (text: String, column: Int, rows: Int) {
        var out = ""
        var column = column
        var rows = 0
        for piece in Self.words(text) {
            let word = String(piece.drop { $0 == " " })
            var lead = piece.count > word.count && column > 0 ? " " : ""
            let wordCells = TextCells.width(of: word)
            if column > 0, column + lead.count + wordCells > width, wordCells <= width {
                out += "\r\n"
                rows += 1
                column = 0
                lead = ""
            }
            for character in lead + word {
                let cells = TextCells.width(of: character)
                if column + cells > width {
                    // The terminal wraps here by itself.
                    rows += 1
                    column = 0
                }
                column += cells
                out.append(character)
            }
        }
        return (out, column, rows)
    }

    /// The words of `text`, each with the spaces before it (" It", " was"); other whitespace counts as a space.
    static func words(_ text: String) -> [String] {
        var words: [String] = []
        var current = ""
        var inWord = false
        for character in text {
            if character.isWhitespace {
                if inWord {
                    words.append(current)
                    current = ""
                    inWord = false
                }
                current.append(" ")
            } else {
                current.append(character)
                inWord = true
            }
        }
        if inWord { words.append(current) }
        return words
    }

    // MARK: - Escape sequences

    private static let eraseBelow = "\u{1B}[J"
    private static let saveCursor = "\u{1B}7"
    private static let restoreCursor = "\u{1B}8"
    private static let normal = "\u{1B}[0m"
    private static let dim = "\u{1B}[2m"
    private static let reverse = "\u{1B}[7m"

    private static func up(_ rows: Int) -> String { rows > 0 ? "\u{1B}[\(rows)A" : "" }
    private static func down(_ rows: Int) -> String { rows > 0 ? "\u{1B}[\(rows)B" : "" }
    private static func right(_ columns: Int) -> String { columns > 0 ? "\u{1B}[\(columns)C" : "" }
}
