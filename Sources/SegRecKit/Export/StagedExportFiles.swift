import Foundation
import SegRecMedia

/// The files of an export written under temporary names (`NAME.partial`) and given their
/// own names only once every one of them is whole (``commit()``), the way `--mp4` writes
/// its one file: an export that is interrupted (Ctrl-C exits at once), killed or fails
/// leaves no truncated file under a name a player or the next export reads, and an older
/// export replaced with `--force` stays whole until the new one is complete.
///
/// What an interrupted export left at its `.partial` names (regular files, and the
/// symbolic links a concat list stages the same way) is never a finished output:
/// ``init(finals:source:)`` removes it (`unlink(2)`, which never follows a link), so a
/// rerun starts clean with or without `--force`. A folder or anything else at such a name
/// is left alone (creating the file there then fails).
struct StagedExportFiles {
    /// The temporary name's suffix.
    static let suffix = ".partial"

    /// The files' own names, in the order they are written.
    let finals: [String]

    /// Removes the leftovers of `finals`' temporary names.
    /// - Throws: ``RecordingError/cannotCreateOutput(path:detail:)`` when a temporary name
    ///   is a file of the recording in `source`.
    init(finals: [String], source: ExportSource?) throws(RecordingError) {
        self.finals = finals
        let staged = finals.map(Self.staged)
        if let source { try ExportOutput.checkOutside(source, paths: staged) }
        for path in staged where Self.isFileOrLink(path) { unlink(path) }
    }

    /// `final`'s temporary name.
    static func staged(_ final: String) -> String { final + suffix }

    /// Gives every written file its own name (`rename(2)`, replacing what an earlier export
    /// left there with `--force`).
    /// - Throws: ``RecordingError/io(path:underlying:)`` naming the file that could not be
    ///   renamed (those renamed before it keep their names).
    func commit() throws(RecordingError) {
        for final in finals where rename(Self.staged(final), final) != 0 {
            throw .io(path: final, underlying: "cannot rename \(Self.staged(final)) to it: \(String(cString: strerror(errno)))")
        }
    }

    /// Removes the temporary files written so far (after a failure).
    func discard() { for final in finals { SafeFile.remove(path: Self.staged(final)) } }

    /// Removes the files an earlier export named and this one did not write: `names`
    /// (plain file names in `folder`, as its playlist or list named them) that are regular
    /// files or symbolic links (a concat list's links), are not in `finals` and are not
    /// files of the recording in `source` or of a recording whose folder `folder` is.
    /// Returns how many were removed.
    func removeStale(_ names: [String], in folder: URL, source: ExportSource?) -> Int {
        let written = Set(finals)
        let recording = (source.map(ExportOutput.recordingFiles(of:)) ?? []).union(ExportOutput.recordingFiles(in: folder))
        var removed = 0
        for name in Set(names) where !name.isEmpty && !name.contains("/") && name != "." && name != ".." {
            let path = folder.appendingPathComponent(name).path
            guard !written.contains(path), !recording.contains(ExportOutput.resolved(path)) else { continue }
            if Self.isFileOrLink(path), SafeFile.remove(path: path) { removed += 1 }
        }
        return removed
    }

    /// Whether `path` is a regular file or a symbolic link (`lstat(2)`).
    static func isFileOrLink(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && (info.st_mode & S_IFMT == S_IFREG || info.st_mode & S_IFMT == S_IFLNK)
    }

    /// The text of the file at `path` when it is a regular file of at most `limit` bytes
    /// (an earlier playlist or list), else nil.
    static func previousText(at path: String, limit: Int64 = 16 << 20) -> String? {
        guard OutputDirectory.isRegularFile(URL(fileURLWithPath: path)), let size = SafeFile.size(path: path), size <= limit else { return nil }
        return try? String(contentsOfFile: path, encoding: .utf8)
    }
}
