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

    /// The names of the files a list's text names in the folder `folder` beside it
    /// (`file 'folder/NAME'` lines, unquoted): what an earlier export wrote there.
    static func fileNames(in text: String, under folder: String) -> [String] {
        text.split(whereSeparator: \.isNewline).compactMap { line -> String? in
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard trimmed.hasPrefix("file ") else { return nil }
            let path = unquote(trimmed.dropFirst(5).trimmingCharacters(in: .whitespaces))
            guard path.hasPrefix(folder + "/") else { return nil }
            return String(path.dropFirst(folder.count + 1))
        }
    }

    /// The reverse of ``quote(_:)`` (FFmpeg's `av_get_token` for what it writes: quoted
    /// runs and `\'`).
    static func unquote(_ token: String) -> String {
        var out = ""
        var quoted = false
        var escaped = false
        for character in token {
            if escaped {
                out.append(character)
                escaped = false
            } else if character == "'" {
                quoted.toggle()
            } else if character == "\\" && !quoted {
                escaped = true
            } else {
                out.append(character)
            }
        }
        return out
    }

    /// `'name'`, with each `'` written as `'\''`.
    package static func quote(_ path: String) -> String { "'" + path.replacingOccurrences(of: "'", with: "'\\''") + "'" }
}
