import Foundation

/// Left-aligned columns separated by two spaces, with a header row; trailing spaces trimmed.
public struct TextTable: Sendable {
    public var headers: [String]
    public var rows: [[String]] = []

    public init(_ headers: String...) { self.headers = headers }

    public mutating func add(_ cells: String...) { rows.append(cells) }
    public mutating func add(row cells: [String]) { rows.append(cells) }

    public var rendered: String {
        let all = [headers] + rows
        var widths = [Int](repeating: 0, count: headers.count)
        for row in all {
            for (column, cell) in row.enumerated() where column < widths.count {
                widths[column] = max(widths[column], TextWidth.of(cell))
            }
        }
        return all.map { row in
            row.enumerated().map { column, cell in
                column == row.count - 1 ? cell : TextWidth.pad(cell, to: widths[column])
            }.joined(separator: "  ").trimmingTrailingSpaces()
        }.joined(separator: "\n") + "\n"
    }
}

/// Display width of text (one column per character; escape sequences take none).
enum TextWidth {
    static func of(_ text: String) -> Int {
        var width = 0
        var inEscape = false
        for scalar in text.unicodeScalars {
            if inEscape { if scalar == "m" { inEscape = false }; continue }
            if scalar == "\u{1B}" { inEscape = true; continue }
            width += 1
        }
        return width
    }

    static func pad(_ text: String, to width: Int) -> String {
        text + String(repeating: " ", count: max(0, width - of(text)))
    }

    static func truncate(_ text: String, to width: Int) -> String {
        guard of(text) > width else { return text }
        guard width > 1 else { return String(text.prefix(width)) }
        return String(text.prefix(width - 1)) + "…"
    }
}

extension String {
    func trimmingTrailingSpaces() -> String {
        var result = self
        while result.last == " " { result.removeLast() }
        return result
    }
}
