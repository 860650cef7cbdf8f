import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// `segrec recover DIR`: completes a recording whose process died (kill, crash, power
/// loss), from what is on disk: the manifest journal (rewritten at every segment open and
/// close) and the open segments' fragmented `.partial` files.
///
/// Each `segment-NNN.mp4.partial` the journal lists becomes an ordinary `segment-NNN.mp4`
/// holding every frame of its complete fragments (``SegmentRecovery``, in Media); its
/// record gets the frames kept, its end and its size. The manifest is completed with
/// `stopReason: interrupted` (a recording that had stopped with `error`, e.g. on a full
/// disk, keeps that), `stopTime` and `recovery` (what was rebuilt, frames kept and
/// lost, `lostAfter`), and written atomically; the stale lock file is removed. Running it
/// again on a recovered folder changes nothing. It refuses while the recording process
/// still holds the folder's lock.
public enum RecordingRecovery {
    /// What one run did.
    public struct Report: Sendable, Equatable {
        /// The manifest as written (unchanged when there was nothing to recover).
        public var manifest: RecordingManifest
        /// Whether anything was changed.
        public var changed: Bool
    }

    /// Why `directory` (with `manifest`) is not a finished recording, in words that say
    /// what to do, or nil when it is finished.
    public static func interruption(of directory: URL, manifest: RecordingManifest) -> String? {
        if case .some(let pid) = RecordingLock.holder(of: directory) {
            return "the recording is still running (process \(pid.map(String.init) ?? "unknown") holds \(RecordingLock.fileName)); verify it once it has ended"
        }
        let partials = partialFiles(in: directory)
        guard manifest.stopReason == nil || !partials.isEmpty else { return nil }
        let detail = partials.isEmpty ? "its manifest has no stopReason" : "\(partials.joined(separator: ", ")) never finished"
        return "the recording was interrupted (\(detail)): run `segrec recover \(directory.path)` first"
    }

    /// Recovers `directory`.
    /// - Throws: ``RecordingError/locked(path:pid:)`` while the recording runs;
    ///   ``RecordingError/inputNotFound(path:)`` / ``RecordingError/badInput(path:field:detail:)``
    ///   for a missing or unreadable manifest, or one with a number out of range or a file
    ///   name that is not segrec's (``ManifestReader/read(from:)``, the field named); ``RecordingError/io(path:underlying:)`` when
    ///   the manifest cannot be written.
    public static func recover(_ directory: URL) throws(RecordingError) -> Report {
        let lock = try RecordingLock(folder: directory)
        defer { lock.release() }
        let manifest = try ManifestReader.read(from: directory)
        let partials = partialFiles(in: directory)
        guard manifest.stopReason == nil || !partials.isEmpty else { return Report(manifest: manifest, changed: false) }
        // Every count changes in ManifestBuilder: frames the journal counted as written that
        // are in no file are dropped `interrupted`.
        var builder = ManifestBuilder(resuming: manifest)
        var recovered: [String] = []
        for segment in manifest.segments {
            let files = SegmentFiles(segment.file, in: directory)
            let partial = files.partial
            let hasPartial = OutputDirectory.isRegularFile(partial)
            // A faststart copy interrupted at close: the partial still holds everything.
            if OutputDirectory.isRegularFile(files.temporary) { unlink(files.temporary.path) }
            if OutputDirectory.isRegularFile(files.url) {
                // Finished before the crash; a leftover partial of it is a duplicate.
                if hasPartial { unlink(partial.path) }
                // Its size reached the journal only if a later segment closed after it.
                if let size = (try? FileManager.default.attributesOfItem(atPath: files.url.path))?[.size] as? NSNumber {
                    builder.apply(
                        .segmentClosed(
                            file: segment.file, start: segment.sessionStart, end: segment.sessionEnd, frames: segment.frameCount, bytes: size.int64Value))
                }
                continue
            }
            guard hasPartial else {
                builder.lost(segment.file)
                if segment.frameCount > 0 {
                    builder.apply(.warning("\(segment.file): neither the file nor its .partial exists; its \(segment.frameCount) journaled frames are lost"))
                }
                continue
            }
            do {
                // A segment the recorder had closed has its exact end in the journal.
                let closedEnd = segment.sessionEnd > segment.sessionStart ? try? segment.sessionEnd.subtracting(segment.sessionStart) : nil
                let result = try SegmentRecovery.recover(partial: partial, to: files.url, knownEnd: closedEnd.map { (segment.frameCount, $0) })
                let end = try result.sessionEnd(start: segment.sessionStart, knownEnd: closedEnd)
                builder.recovered(segment.file, frames: result.frameCount, end: end, bytes: result.byteCount)
                unlink(partial.path)
                recovered.append(segment.file)
            } catch let error as SegmentRecoveryError where SafeFile.size(path: partial.path) == 0 {
                // Not one byte on disk (killed before the first fragment): nothing to keep.
                unlink(partial.path)
                builder.lost(segment.file)
                if segment.frameCount > 0 {
                    builder.apply(.warning("\(segment.file): no complete fragment was on disk (\(error)); its \(segment.frameCount) journaled frames are lost"))
                }
            } catch {
                // Bytes that hold no frame segrec can read are never deleted: they may be
                // somebody else's file at that name.
                // Kept, under a name segrec never writes, for whoever wants to look further.
                let aside = SegmentFiles.setAside(partial, .unrecoverable)
                builder.lost(segment.file)
                builder.apply(
                    .warning(
                        "\(segment.file): nothing could be recovered from \(partial.lastPathComponent) (\(error)); \(aside.map { "kept as \($0.lastPathComponent)" } ?? "left in place")"
                    ))
            }
        }
        // A partial the journal does not list cannot be placed on the session clock (the
        // journal lists a segment before its file is created, so this only happens with a
        // journal write that failed): kept under a name segrec never writes.
        for name in partialFiles(in: directory) {
            let aside = SegmentFiles.setAside(directory.appendingPathComponent(name), .unlisted)
            builder.apply(
                .warning(
                    "\(name) is not in the manifest, so it cannot be placed on the session clock; \(aside.map { "kept as \($0.lastPathComponent)" } ?? "left in place")"
                ))
        }
        builder.finishRecovery(rebuilt: recovered)
        try ManifestWriter.write(builder.manifest, to: directory)
        return Report(manifest: builder.manifest, changed: true)
    }

    /// The `segment-NNN.mp4.partial` (and leftover `.tmp`) regular files in `directory`,
    /// sorted (segrec never makes symlinks: one under such a name is not its file).
    static func partialFiles(in directory: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).filter {
            SegmentFiles.isUnfinishedName($0) && OutputDirectory.isRegularFile(directory.appendingPathComponent($0))
        }.sorted()
    }
}
