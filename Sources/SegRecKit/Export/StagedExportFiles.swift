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

    /// Puts a whole export in place: sets the earlier playlist or list at `path` aside
    /// (``setAside(_:)``), gives every staged file its name (``commit()``), writes `text` at
    /// `path` (through a temporary file and a rename), then removes the files `previous`
    /// names in `folder` that this export did not write (``removeStale(_:in:source:)``) and
    /// the earlier playlist set aside. Returns how many stale files were removed.
    /// - Throws: ``RecordingError/io(path:underlying:)`` when a rename or the write fails.
    func publish(_ text: String, at path: String, replacing previous: [String], in folder: URL, source: ExportSource?) throws(RecordingError) -> Int {
        try Self.setAside(path)
        try commit()
        try ExportOutput.writeText(text, to: path)
        let removed = removeStale(previous, in: folder, source: source)
        Self.removeSetAside(path)
        return removed
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

    /// Whether the export to the playlist or list `path` was stopped while it replaced an
    /// earlier one: the playlist is gone and the earlier one is set aside at its `.partial`
    /// name (``setAside(_:)``). Its files may then be replaced without `force`: they are that
    /// export's and the earlier one's, and no playlist names them.
    static func wasInterruptedReplacing(_ path: String) -> Bool { !SafeFile.exists(path: path) && isFileOrLink(staged(path)) }

    /// The file names the earlier playlists or lists at `path` give (`parse` reads their
    /// text): the one in place when `force` replaces it, and the one an interrupted
    /// replacement set aside (whether or not that replacement got its own playlist in place
    /// before it stopped); else none.
    static func previousNames(of path: String, force: Bool, parse: (String) -> [String]) -> [String] {
        let inPlace = force && SafeFile.exists(path: path) ? previousText(at: path).map(parse) ?? [] : []
        let setAside = isFileOrLink(staged(path)) ? previousText(at: staged(path)).map(parse) ?? [] : []
        return inPlace + setAside
    }

    /// Moves the earlier playlist or list at `path` (when there is one) to its `.partial`
    /// name before the files it names are replaced, so no player reads it naming a mix of
    /// earlier and new files; ``removeSetAside(_:)`` removes it once the new one is in place.
    /// - Throws: ``RecordingError/io(path:underlying:)`` when it cannot be renamed.
    static func setAside(_ path: String) throws(RecordingError) {
        guard SafeFile.exists(path: path) else { return }
        guard rename(path, staged(path)) == 0 else {
            throw .io(path: path, underlying: "cannot rename it to \(staged(path)): \(String(cString: strerror(errno)))")
        }
    }

    /// Removes the earlier playlist or list ``setAside(_:)`` moved (regular file or link).
    static func removeSetAside(_ path: String) { if isFileOrLink(staged(path)) { unlink(staged(path)) } }

    /// Whether `path` is a regular file or a symbolic link (`lstat(2)`).
    static func isFileOrLink(_ path: String) -> Bool { SafeFile.exists(path: path) && ExportOutput.notReplaceable(path) == nil }

    /// The text of the file at `path` when it is a regular file of at most `limit` bytes
    /// (an earlier playlist or list), else nil.
    static func previousText(at path: String, limit: Int64 = 16 << 20) -> String? {
        guard OutputDirectory.isRegularFile(URL(fileURLWithPath: path)), let size = SafeFile.size(path: path), size <= limit else { return nil }
        return try? String(contentsOfFile: path, encoding: .utf8)
    }
}
