import Foundation

/// The files an export or report is about to write, checked before anything is written:
/// none may exist unless `force` is given (then exactly these files are replaced, nothing
/// else in the folder is touched), the same rule `segrec record` follows.
struct ExportOutput {
    /// Every path that will be written.
    let paths: [String]
    /// The folder, when this check created it (else nil).
    let createdFolder: URL?

    /// Creates `folder` (and its parents) when missing and checks `paths`.
    ///
    /// An export writes regular files only: a folder, FIFO, device or socket at one of
    /// `paths` is refused, `force` or not (`--force /dev/null` never replaces a device).
    /// A file of a recording is never replaced: of the one being exported (`source`), and
    /// of any recording whose folder `folder` is (it holds a `manifest.json`: that
    /// manifest, the files it names and their partial files).
    /// - Throws: ``RecordingError/outputExists(path:)`` for the first existing path without
    ///   `force`; ``RecordingError/cannotCreateOutput(path:detail:)`` when the folder cannot
    ///   be made, is a file or is not writable, a path is not a regular file or symbolic
    ///   link, a path is a recording's file, or an existing path cannot be removed with `force`.
    /// With `removesExisting` false, `force` only allows existing files to be replaced later
    /// by a rename (``StagedExportFiles``), so they stay whole until then.
    init(folder: URL, paths: [String], force: Bool, protecting source: ExportSource? = nil, removesExisting: Bool = true) throws(RecordingError) {
        if let source { try Self.checkOutside(source, paths: paths) }
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: folder.path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else { throw .cannotCreateOutput(path: folder.path, detail: "exists and is not a folder") }
            createdFolder = nil
        } else {
            do { try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true) } catch {
                throw .cannotCreateOutput(path: folder.path, detail: Self.reason(error))
            }
            createdFolder = folder
        }
        guard access(folder.path, W_OK) == 0 else {
            throw .cannotCreateOutput(path: folder.path, detail: "is not writable (\(String(cString: strerror(errno))))")
        }
        let recording = Self.recordingFiles(in: folder)
        for path in paths where SafeFile.exists(path: path) {
            if let kind = Self.notReplaceable(path) {
                throw .cannotCreateOutput(
                    path: path, detail: "is \(kind): an export writes regular files only, and --force replaces only a regular file or a symbolic link")
            }
            if recording.contains(Self.resolved(path)) {
                throw .cannotCreateOutput(
                    path: path,
                    detail: "is a file of the recording in \(folder.path) (its manifest.json names it); choose another output (--force never replaces it)")
            }
            guard force else { throw .outputExists(path: path) }
            guard removesExisting else { continue }
            guard SafeFile.remove(path: path) else { throw .cannotCreateOutput(path: path, detail: String(cString: strerror(errno))) }
        }
        self.paths = paths
    }

    /// After a failed export: removes the folder this check created when it is still empty
    /// (`rmdir(2)`, which removes nothing else; its parents, created with it, stay).
    func removeCreatedFolderIfEmpty() { if let createdFolder { rmdir(createdFolder.path) } }

    /// What is at `path` in words when it is neither a regular file nor a symbolic link
    /// ("a folder", "a FIFO", "a device", "a socket"), else nil. `lstat(2)`.
    static func notReplaceable(_ path: String) -> String? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        switch info.st_mode & S_IFMT {
        case S_IFREG, S_IFLNK: return nil
        case S_IFDIR: return "a folder"
        case S_IFIFO: return "a FIFO"
        case S_IFSOCK: return "a socket"
        default: return "a device"
        }
    }

    /// The files of the recording whose folder `folder` is, each ``resolved(_:)``: its
    /// `manifest.json` and lock, and, when the manifest reads, its segments and their
    /// partial files. Empty when `folder` holds no `manifest.json`.
    static func recordingFiles(in folder: URL) -> Set<String> {
        guard SafeFile.exists(path: folder.appendingPathComponent(ManifestWriter.fileName).path) else { return [] }
        return ownFiles(of: (try? ManifestReader.read(from: folder))?.segments ?? [], in: folder)
    }

    /// The recording's own files (its manifest, segments, partial files and lock), each
    /// ``resolved(_:)``.
    static func recordingFiles(of source: ExportSource) -> Set<String> { ownFiles(of: source.manifest.segments, in: source.directory) }

    /// A recording folder's `manifest.json` and lock, and `segments`' files and partial
    /// files, each ``resolved(_:)``.
    private static func ownFiles(of segments: [SegmentRecord], in folder: URL) -> Set<String> {
        var own = [ManifestWriter.fileName, "recording.lock"].map { folder.appendingPathComponent($0) }
        for segment in segments {
            let files = SegmentFiles(segment.file, in: folder)
            own += [files.url, files.partial]
        }
        return Set(own.map { resolved($0.path) })
    }

    /// Never the recording itself, even with --force (compared after resolving symbolic
    /// links and "..").
    /// - Throws: ``RecordingError/cannotCreateOutput(path:detail:)`` naming the first of
    ///   `paths` that is a file of the recording in `source`.
    static func checkOutside(_ source: ExportSource, paths: [String]) throws(RecordingError) {
        let recording = recordingFiles(of: source)
        if let clash = paths.first(where: { recording.contains(resolved($0)) }) {
            throw .cannotCreateOutput(
                path: clash,
                detail: "is part of the recording being exported (\(source.directory.path)); "
                    + "choose an output outside its files (--force never replaces them)")
        }
    }

    /// Writes `text` to `path` through a temporary file and a rename, so a reader never
    /// sees half a playlist.
    /// - Throws: ``RecordingError/io(path:underlying:)``.
    static func writeText(_ text: String, to path: String) throws(RecordingError) {
        do { try Data(text.utf8).write(to: URL(fileURLWithPath: path), options: .atomic) } catch { throw .io(path: path, underlying: reason(error)) }
    }

    /// `path` with its folder's symbolic links and `.`/`..` resolved (the file itself may
    /// not exist yet).
    static func resolved(_ path: String) -> String {
        let url = URL(fileURLWithPath: path).standardizedFileURL
        let folder = url.deletingLastPathComponent().resolvingSymlinksInPath().standardizedFileURL
        return folder.appendingPathComponent(url.lastPathComponent).path
    }

    /// The POSIX text of a Foundation error when it has one.
    static func reason(_ error: any Error) -> String {
        if let posix = (error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError, posix.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(posix.code)))
        }
        return (error as NSError).localizedDescription
    }
}
