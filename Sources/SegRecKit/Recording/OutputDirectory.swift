import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The folder a recording writes into: `segment-NNN.mp4` files, `manifest.json` and, while
/// recording, `recording.lock`.
///
/// Preparing a folder takes its ``RecordingLock`` first, so no two recordings (or a
/// recording and `segrec recover`) ever share a folder. segrec only ever writes names of
/// its own pattern (`segment-` + at least three digits + `.mp4`, its `.partial`, the
/// manifest); every other name in the folder is left alone.
package struct OutputDirectory: Sendable {
    /// The folder.
    package let url: URL
    /// The folder's lock, held until the recording ends.
    package let lock: RecordingLock
    /// Where the recording's files are written: the folder's open descriptor as a path,
    /// `/proc/self/fd/N` (Linux resolves it to the folder that was opened, as `openat(N, …)`
    /// does, wherever that folder is now), or ``url`` where `/proc` is not mounted. So a
    /// folder renamed, or replaced by a symbolic link to another recording, during the
    /// recording never redirects a write.
    package let workingURL: URL
    /// Whether the folder was created for this recording (it did not exist).
    package private(set) var created = false

    /// Prepares `url` for a new recording: creates it if absent and takes its lock.
    ///
    /// A previous recording's files (names segrec writes) are an error unless `force` is
    /// set. `force` removes only what the previous recording's `manifest.json` lists: its
    /// segment files, their `.partial` and `.tmp` files and the manifest itself, each only if it is a
    /// regular file (never a folder or a symlink, never through a symlink). A name of
    /// segrec's pattern that the manifest does not list stays, and preparing fails naming it.
    /// `forceName` is how messages name the force setting (``SettingNames/force``).
    /// - Throws: ``RecordingError/outputExists(path:)`` without `force`;
    ///   ``RecordingError/locked(path:pid:)`` while another process records there;
    ///   ``RecordingError/cannotCreateOutput(path:detail:)`` when the folder can't be made,
    ///   or a file in the way is not the previous recording's.
    package init(preparing url: URL, force: Bool, forceName: String = SettingNames().force) throws(RecordingError) {
        self.url = url
        let fm = FileManager.default
        var isDirectory: ObjCBool = false
        if fm.fileExists(atPath: url.path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else {
                throw .cannotCreateOutput(path: url.path, detail: "it is a file, not a folder (\(forceName) does not replace files)")
            }
        } else {
            do { try fm.createDirectory(at: url, withIntermediateDirectories: true) } catch {
                throw .cannotCreateOutput(path: url.path, detail: Self.reason(creating: url, error))
            }
            created = true
        }
        guard fm.isWritableFile(atPath: url.path) else { throw .cannotCreateOutput(path: url.path, detail: "folder is not writable") }
        let lock = try RecordingLock(folder: url)
        self.lock = lock
        let byDescriptor = URL(fileURLWithPath: "/proc/self/fd/\(lock.folderDescriptor)", isDirectory: true)
        workingURL = SafeFile.isSameFolder(byDescriptor.path, as: url.path) ? byDescriptor : url
        let existing = ((try? fm.contentsOfDirectory(atPath: url.path)) ?? []).filter(Self.isRecordingFile).sorted()
        guard !existing.isEmpty else { return }
        do throws(RecordingError) {
            // Either the whole previous recording goes, or nothing does; and "use force" is
            // only said when force would work.
            let kept = try Self.namesForceKeeps(in: url, names: existing, forceName: forceName)
            guard kept.isEmpty else { throw Self.inTheWay(kept, in: url, forceName: forceName) }
            guard force else { throw RecordingError.outputExists(path: url.path) }
            try Self.removePreviousRecording(in: url, names: existing)
        } catch {
            lock.release()  // leave the folder as it was
            throw error
        }
    }

    /// Gives the folder up before anything was recorded into it: the lock is released and a
    /// folder created for the recording is removed again (when it is still empty).
    package func abandon() {
        lock.release()
        if created { _ = rmdir(url.path) }
    }

    /// `text` with the descriptor path of ``workingURL`` written as the folder's own path,
    /// for messages and the manifest.
    package func displayText(_ text: String) -> String { workingURL == url ? text : text.replacingOccurrences(of: workingURL.path, with: url.path) }

    /// Nil while ``url`` still names the folder being written; else a warning saying
    /// where the files went (the folder was renamed, or something else put at its name).
    package func movedWarning() -> String? {
        guard workingURL != url, !SafeFile.isSameFolder(workingURL.path, as: url.path) else { return nil }
        let now = (try? FileManager.default.destinationOfSymbolicLink(atPath: workingURL.path)) ?? "an unknown place"
        return "the output folder \(url.path) was renamed or replaced during the recording; segrec kept writing into the folder it opened, now at \(now)"
    }

    /// The names among `names` that force would not remove: not listed by the previous
    /// manifest, or not regular files.
    /// - Throws: ``RecordingError/cannotCreateOutput(path:detail:)`` when `manifest.json` is
    ///   there but is not a segrec manifest.
    private static func namesForceKeeps(in url: URL, names: [String], forceName: String) throws(RecordingError) -> [String] {
        let manifestURL = url.appendingPathComponent(ManifestWriter.fileName)
        // A leftover manifest temporary file is segrec's own (a run killed while writing it).
        var listed: Set<String> = [ManifestWriter.temporaryFileName]
        if names.contains(ManifestWriter.fileName) {
            guard isRegularFile(manifestURL), let manifest = try? ManifestReader.read(from: url) else {
                throw .cannotCreateOutput(
                    path: manifestURL.path,
                    detail:
                        "it is not a segrec manifest (or not a regular file), so \(forceName) does not know what the previous recording wrote; move the folder's contents away"
                )
            }
            listed.insert(ManifestWriter.fileName)
            for segment in manifest.segments { listed.formUnion(SegmentFiles.names(of: segment.file)) }
        }
        return names.filter { !listed.contains($0) || !isRegularFile(url.appendingPathComponent($0)) }
    }

    /// The error for names force would keep, naming the first.
    private static func inTheWay(_ names: [String], in url: URL, forceName: String) -> RecordingError {
        .cannotCreateOutput(
            path: url.appendingPathComponent(names[0]).path,
            detail:
                "not listed in the previous recording's manifest (or not a regular file): \(forceName) removes only the files segrec's manifest lists; move \(names.joined(separator: ", ")) away"
        )
    }

    /// Removes `names`, every one of which the previous manifest lists (checked first).
    private static func removePreviousRecording(in url: URL, names: [String]) throws(RecordingError) {
        // The manifest goes last, so an interrupted removal can be resumed.
        for name in names.sorted(by: { a, _ in a != ManifestWriter.fileName }) {
            let path = url.appendingPathComponent(name)
            guard unlink(path.path) == 0 || errno == ENOENT else { throw .cannotCreateOutput(path: path.path, detail: String(cString: strerror(errno))) }
        }
    }

    /// Whether `url` is a regular file itself (`lstat`: a symlink is not).
    static func isRegularFile(_ url: URL) -> Bool {
        var info = stat()
        return lstat(url.path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
    }

    /// Why `url` could not be created, in words: a file in the way, a read-only or missing
    /// parent, or Foundation's message.
    private static func reason(creating url: URL, _ error: any Error) -> String {
        let fm = FileManager.default
        var ancestor = url.deletingLastPathComponent()
        while !fm.fileExists(atPath: ancestor.path), ancestor.path != "/" { ancestor = ancestor.deletingLastPathComponent() }
        var isDirectory: ObjCBool = false
        if fm.fileExists(atPath: ancestor.path, isDirectory: &isDirectory), !isDirectory.boolValue { return "\(ancestor.path) is a file, not a folder" }
        if !fm.isWritableFile(atPath: ancestor.path) { return "\(ancestor.path) is not writable" }
        return error.localizedDescription
    }

    /// `segment-000.mp4`, `segment-001.mp4`, …
    package static func segmentFileName(_ index: Int) -> String { SegmentFiles.name(index) }

    /// Names a recording writes: `manifest.json` (and its `manifest.json.tmp` while it is
    /// rewritten), `segment-NNN.mp4` (three or more digits),
    /// its `.partial` (the fragmented file while open) and its `.tmp` (the faststart copy
    /// being made at close); see ``SegmentFiles``.
    static func isRecordingFile(_ name: String) -> Bool {
        name == ManifestWriter.fileName || name == ManifestWriter.temporaryFileName || SegmentFiles.isOwnName(name)
    }

    /// A new dated folder name under `parent`, e.g. `segrec-20261129-120501`, never an
    /// existing one (a `-2`, `-3`, … suffix is added when needed).
    package static func newDatedFolder(in parent: URL, now: Date = Date()) -> URL {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyyMMdd-HHmmss"
        let base = "segrec-" + formatter.string(from: now)
        var candidate = parent.appendingPathComponent(base)
        var n = 2
        while FileManager.default.fileExists(atPath: candidate.path) {
            candidate = parent.appendingPathComponent("\(base)-\(n)")
            n += 1
        }
        return candidate
    }
}
