import Foundation

/// The files an export or report is about to write, checked before anything is written:
/// none may exist unless `force` is given (then exactly these files are replaced, nothing
/// else in the folder is touched), the same rule `segrec record` follows.
struct ExportOutput {
    /// Every path that will be written.
    let paths: [String]

    /// Creates `folder` (and its parents) when missing and checks `paths`.
    /// - Throws: ``RecordingError/outputExists(path:)`` for the first existing path without
    ///   `force`; ``RecordingError/cannotCreateOutput(path:detail:)`` when the folder cannot
    ///   be made, is a file, or an existing path cannot be removed with `force`.
    /// With `removesExisting` false, `force` only allows existing files (not folders) to
    /// be replaced later by a rename (``StagedExportFiles``), so they stay whole until then.
    init(folder: URL, paths: [String], force: Bool, protecting source: ExportSource? = nil, removesExisting: Bool = true) throws(RecordingError) {
        if let source { try Self.checkOutside(source, paths: paths) }
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: folder.path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else { throw .cannotCreateOutput(path: folder.path, detail: "exists and is not a folder") }
        } else {
            do { try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true) } catch {
                throw .cannotCreateOutput(path: folder.path, detail: Self.reason(error))
            }
        }
        for path in paths where SafeFile.exists(path: path) {
            guard force else { throw .outputExists(path: path) }
            guard removesExisting else {
                // Replaced by a rename at the end: a folder cannot be.
                guard SafeFile.notRegularFolder(path: path) != nil else {
                    throw .cannotCreateOutput(path: path, detail: "is a folder; --force replaces files only")
                }
                continue
            }
            guard SafeFile.remove(path: path) else { throw .cannotCreateOutput(path: path, detail: String(cString: strerror(errno))) }
        }
        self.paths = paths
    }

    /// The recording's own files (its manifest, segments, partial files and lock), each
    /// ``resolved(_:)``.
    static func recordingFiles(of source: ExportSource) -> Set<String> {
        var own = [ManifestWriter.fileName, "recording.lock"].map { source.directory.appendingPathComponent($0) }
        for segment in source.manifest.segments {
            let files = SegmentFiles(segment.file, in: source.directory)
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
