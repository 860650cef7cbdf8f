import Foundation

/// An ffconcat list (FFmpeg's `concat` demuxer script, `ffconcat version 1.0`) as text:
/// one `file` and one `duration` line per segment, in order.
///
/// Paths are quoted for FFmpeg's tokenizer (`av_get_token`): inside single quotes nothing is
/// special, and a `'` is written `'\''`. Durations are exact with 9 decimals; FFmpeg parses
/// them with `av_parse_time`, to the microsecond.
package struct ConcatList: Sendable, Equatable {
    /// One file of the list.
    package struct Entry: Sendable, Equatable {
        /// Path of the file relative to the list's folder (or absolute).
        package var path: String
        /// Exact duration (the manifest's `sessionEnd − sessionStart`).
        package var duration: MediaTime

        /// An entry.
        package init(path: String, duration: MediaTime) {
            self.path = path
            self.duration = duration
        }
    }

    /// The files in play order.
    package var entries: [Entry]

    /// A list of `entries`.
    package init(entries: [Entry]) { self.entries = entries }

    /// The list text, lines ending in `\n`.
    package func render() -> String {
        var lines = ["ffconcat version 1.0"]
        for entry in entries {
            lines.append("file \(Self.quote(entry.path))")
            lines.append("duration \(DecimalSeconds.text(entry.duration, digits: 9))")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// `'name'`, with each `'` written as `'\''`.
    package static func quote(_ path: String) -> String { "'" + path.replacingOccurrences(of: "'", with: "'\\''") + "'" }
}
