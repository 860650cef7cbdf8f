/// A VOD media playlist of fMP4 segments (RFC 8216bis, `EXT-X-VERSION:7`) as text.
///
/// An entry that starts a recorded file has its initialization section (`EXT-X-MAP`), and,
/// after the first, `EXT-X-DISCONTINUITY` when ``discontinuities`` is set. Each recorded
/// file is its own encoding sequence (its own encoder, parameter sets and, at a size change
/// or camera switch, dimensions), which RFC 8216 §4.3.2.3 says should be signalled; what it
/// says must be (file format; number, type and identifiers of tracks; timestamp sequence)
/// never changes between the files of an export, whose timestamps continue. Without the tag
/// VLC 3 plays every frame, with it Chromium's native HLS does (Docs/output.md). The file's
/// further media segments (entries with no `initURI`) follow with neither: same map, same
/// sequence.
/// `EXTINF` carries the exact duration with 9 decimals; `EXT-X-TARGETDURATION` is the
/// ceiling of the longest.
package struct HLSPlaylist: Sendable, Equatable {
    /// One media segment.
    package struct Entry: Sendable, Equatable {
        /// URI of the initialization section, relative to the playlist, for an entry that
        /// starts a file (a map, and a discontinuity unless it is the first entry); nil for a
        /// later media segment of the same file.
        package var initURI: String?
        /// URI of the media segment, relative to the playlist.
        package var mediaURI: String
        /// Exact duration (the manifest's `sessionEnd − sessionStart`).
        package var duration: MediaTime
        /// `EXT-X-PROGRAM-DATE-TIME` value (ISO 8601 with milliseconds), or nil.
        package var programDateTime: String?
        /// Free text after the comma of `EXTINF` (e.g. `720x1280 9x16`).
        package var title: String

        /// An entry; `title` and `programDateTime` are optional.
        package init(initURI: String?, mediaURI: String, duration: MediaTime, programDateTime: String? = nil, title: String = "") {
            self.initURI = initURI
            self.mediaURI = mediaURI
            self.duration = duration
            self.programDateTime = programDateTime
            self.title = title
        }
    }

    /// The segments in play order.
    package var entries: [Entry]
    /// Whether each entry with an `initURI` after the first starts with `EXT-X-DISCONTINUITY`.
    package var discontinuities: Bool

    /// A playlist of `entries`, with or without `EXT-X-DISCONTINUITY` before each file after the first.
    package init(entries: [Entry], discontinuities: Bool = false) {
        self.entries = entries
        self.discontinuities = discontinuities
    }

    /// `EXT-X-TARGETDURATION`: the ceiling of the longest `EXTINF`, at least 1.
    package var targetDuration: Int64 { max(1, entries.map { DecimalSeconds.ceilingSeconds($0.duration) }.max() ?? 1) }

    /// The playlist text, lines ending in `\n`.
    package func render() -> String {
        var lines = [
            "#EXTM3U", "#EXT-X-VERSION:7", "#EXT-X-TARGETDURATION:\(targetDuration)", "#EXT-X-MEDIA-SEQUENCE:0", "#EXT-X-PLAYLIST-TYPE:VOD",
            "#EXT-X-INDEPENDENT-SEGMENTS"
        ]
        for (index, entry) in entries.enumerated() {
            if let initURI = entry.initURI {
                if index > 0 && discontinuities { lines.append("#EXT-X-DISCONTINUITY") }
                lines.append("#EXT-X-MAP:URI=\"\(Self.quoted(initURI))\"")
            }
            if let date = entry.programDateTime { lines.append("#EXT-X-PROGRAM-DATE-TIME:\(date)") }
            lines.append("#EXTINF:\(DecimalSeconds.text(entry.duration, digits: 9)),\(entry.title)")
            lines.append(Self.uri(entry.mediaURI))
        }
        lines.append("#EXT-X-ENDLIST")
        return lines.joined(separator: "\n") + "\n"
    }

    /// A relative URI for a file name: percent-encodes what a URI line or quoted string
    /// cannot hold (space, `"`, `%`, `#`, `?`, control characters, non-ASCII).
    static func uri(_ name: String) -> String {
        var out = ""
        for byte in name.utf8 {
            let c = Character(Unicode.Scalar(byte))
            if byte < 0x21 || byte > 0x7E || "\"%#?\\".contains(c) {
                out += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            } else {
                out.append(c)
            }
        }
        return out
    }

    static func quoted(_ name: String) -> String { uri(name) }

    /// The file names a playlist's text refers to: its media segment lines and its
    /// `EXT-X-MAP` URIs, percent-decoded, in order (what an earlier export wrote).
    static func fileNames(in text: String) -> [String] {
        var names: [String] = []
        for line in text.split(whereSeparator: \.isNewline).map({ $0.trimmingCharacters(in: .whitespaces) }) where !line.isEmpty {
            if !line.hasPrefix("#") {
                names.append(line)
            } else if line.hasPrefix("#EXT-X-MAP:"), let start = line.range(of: "URI=\""), let end = line[start.upperBound...].firstIndex(of: "\"") {
                names.append(String(line[start.upperBound..<end]))
            }
        }
        return names.compactMap { $0.removingPercentEncoding }
    }
}

extension String {
    /// Pads with leading zeros to `width` characters.
    func leftPadded(to width: Int) -> String { count >= width ? self : String(repeating: "0", count: width - count) + self }
}
