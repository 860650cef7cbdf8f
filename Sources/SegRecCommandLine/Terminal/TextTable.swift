/// Left-aligned plain-text tables for summaries.
enum TextTable {
    /// Renders `rows` (the first is the header) with columns padded to their widest cell.
    static func render(_ rows: [[String]]) -> String {
        guard let header = rows.first else { return "" }
        var widths = [Int](repeating: 0, count: header.count)
        for row in rows { for (i, cell) in row.enumerated() where i < widths.count { widths[i] = max(widths[i], cell.count) } }
        return rows.map { row in
            row.enumerated().map { i, cell in i == row.count - 1 ? cell : cell + String(repeating: " ", count: widths[i] - cell.count) }.joined(separator: "  ")
        }.joined(separator: "\n")
    }
}
