import Foundation

/// Every name one segment file goes by, spelled in one place. Beside the finished file
/// (`segment-NNN.mp4` in a recording; any name for a lone ``SegmentWriter``):
/// - ``partial``, `+ .partial`: the file written while the segment is open (a fragmented
///   MP4 with fragments), which `segrec recover` rebuilds after a crash;
/// - ``temporary``, `+ .tmp`: the ordinary MP4 being made at close (``SegmentWriter``) or
///   by ``SegmentRecovery``, before it gets the final name;
/// - ``Aside``, `+ .unfinished`, `.unrecoverable` or `.unlisted` after an unfinished file's
///   name: where frames that could not be finished are kept, under a name segrec never
///   writes (so neither `verify`, `recover` nor `--force` takes it for its own).
package struct SegmentFiles: Sendable, Hashable {
    /// Why an unfinished file is set aside: the suffix its name gets.
    package enum Aside: String, Sendable {
        /// The recorder could not finish it and its final name was taken by another file.
        case unfinished
        /// `segrec recover` could not rebuild it.
        case unrecoverable
        /// `segrec recover` found it in no manifest, so it cannot be placed on the session clock.
        case unlisted
    }

    private static let prefix = "segment-", suffix = ".mp4", partialSuffix = ".partial", temporarySuffix = ".tmp"

    private let directory: URL, file: String

    /// The finished file.
    package var url: URL { directory.appendingPathComponent(file) }
    /// The file written while the segment is open: `url` + `.partial`.
    package var partial: URL { directory.appendingPathComponent(file + Self.partialSuffix) }
    /// The finished MP4 being written before it is given the name `url`: `url` + `.tmp`.
    package var temporary: URL { directory.appendingPathComponent(file + Self.temporarySuffix) }

    /// The files of the segment that finishes as `url`.
    package init(_ url: URL) { self.init(url.lastPathComponent, in: url.deletingLastPathComponent()) }

    /// The files of the segment named `file` (a manifest's `file`, relative to `directory`).
    package init(_ file: String, in directory: URL) { (self.directory, self.file) = (directory, file) }

    /// The files of segment `index` (from 0) of the recording in `directory`.
    package init(index: Int, in directory: URL) { self.init(Self.name(index), in: directory) }

    /// `segment-000.mp4`, `segment-001.mp4`, … (at least three digits: `segment-1234.mp4`).
    package static func name(_ index: Int) -> String { prefix + String(repeating: "0", count: max(0, 3 - String(index).count)) + "\(index)" + suffix }

    /// The names a recording writes for the segment named `file`: the file, its `.partial`
    /// and its `.tmp`.
    package static func names(of file: String) -> [String] { [file, file + partialSuffix, file + temporarySuffix] }

    /// Whether `name` is one a recording writes for a segment: `segment-` + at least three
    /// digits + `.mp4`, optionally followed by `.tmp`, `.partial` or both.
    package static func isOwnName(_ name: String) -> Bool {
        var stem = Substring(name)
        guard stem.hasPrefix(prefix) else { return false }
        stem = stem.dropFirst(prefix.count)
        if stem.hasSuffix(partialSuffix) { stem = stem.dropLast(partialSuffix.count) }
        if stem.hasSuffix(temporarySuffix) { stem = stem.dropLast(temporarySuffix.count) }
        guard stem.hasSuffix(suffix) else { return false }
        let digits = stem.dropLast(suffix.count)
        return digits.count >= 3 && digits.allSatisfy { $0.isASCII && $0.isNumber }
    }

    /// Whether `name` is a finished segment's: `segment-NNN.mp4`.
    package static func isFinishedName(_ name: String) -> Bool { isOwnName(name) && name.hasSuffix(suffix) }

    /// Whether `name` is a segment file that never finished: its `.partial` or `.tmp`.
    package static func isUnfinishedName(_ name: String) -> Bool { (name.hasSuffix(partialSuffix) || name.hasSuffix(temporarySuffix)) && isOwnName(name) }

    /// Keeps the unfinished file `file` under its name + `.` + `why`, without replacing
    /// anything (``SafeFile/moveNoReplace(from:to:)``).
    /// - Returns: the new location, or nil when it could not be moved.
    package static func setAside(_ file: URL, _ why: Aside) -> URL? {
        let aside = file.appendingPathExtension(why.rawValue)
        guard (try? SafeFile.moveNoReplace(from: file.path, to: aside.path)) != nil else { return nil }
        return aside
    }
}
