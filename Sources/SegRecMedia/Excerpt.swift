/// Values echoed in error messages are cut to a short excerpt, so a one-line message stays
/// one short line even when the offending value is a megabyte-long string.
package enum Excerpt {
    /// The longest excerpt, in characters, before the ellipsis.
    package static let defaultLimit = 60

    /// `text` unchanged when it has at most `limit` characters, else its first `limit`
    /// characters followed by `…`; control characters (newlines, tabs) are shown as
    /// spaces so the message stays on one line.
    package static func of(_ text: some StringProtocol, limit: Int = defaultLimit) -> String {
        let cut = text.count > limit
        var result = String(text.prefix(limit))
        if result.contains(where: { $0.isNewline || $0 == "\t" || ($0.asciiValue.map { $0 < 0x20 } ?? false) }) {
            result = String(result.map { $0.isNewline || ($0.asciiValue.map { $0 < 0x20 } ?? false) ? " " : $0 })
        }
        return cut ? result + "…" : result
    }
}
