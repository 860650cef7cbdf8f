import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// `segrec recover DIR`: completes a recording whose process died (kill, crash, power
/// loss), from what is on disk: the manifest journal (rewritten at every segment open and
/// close) and the open segments' fragmented `.partial` files.
///
/// Each `segment-NNN.mp4.partial` the journal lists becomes an ordinary `segment-NNN.mp4`
/// holding every frame of its complete fragments (`SegmentRecovery`, in Media); its
/// record gets the frames kept, its end and its size. The manifest is completed with
/// `stopReason: interrupted` (a recording that had stopped with `error`, e.g. on a full
/// disk, keeps that), `stopTime` and `recovery` (what was rebuilt, frames kept and
/// lost, `lostAfter`), and written atomically; the stale lock file is removed. Running it
/// again on a recovered folder changes nothing. It refuses while the recording process
/// still holds the folder's lock.
///
/// A finished `segment-NNN.mp4` is believed over the journal (its frames and span read from
/// the file; one with no readable frame is set aside as `.unrecoverable`), and a complete
/// `manifest.json.tmp` is used when `manifest.json` is missing. It never makes things worse:
/// every rebuilt file (written into the segment's reserved `.tmp` when there is one) and the
/// new manifest's temporary file are written first, and only then are files renamed and
/// removed; a failure before that (no space) leaves the folder as it was.
package enum RecordingRecovery {
    /// What one run did.
    package struct Report: Sendable, Equatable {
        /// The manifest as written (unchanged when there was nothing to recover).
        package var manifest: RecordingManifest
        /// Whether anything was changed.
        package var changed: Bool
    }

    /// Why `directory` (with `manifest`) is not a finished recording, in words that say
    /// what to do, or nil when it is finished.
    package static func interruption(of directory: URL, manifest: RecordingManifest) -> String? {
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
    ///   ``RecordingError/io(path:underlying:)`` saying "recover changed nothing" when a
    ///   rebuilt file or the manifest cannot be written (e.g. no space; nothing was changed);
    ///   ``RecordingError/inputNotFound(path:)`` / ``RecordingError/badInput(path:field:detail:)``
    ///   for a missing or unreadable manifest, or one with a number out of range or a file
    ///   name that is not segrec's (``ManifestReader/read(from:)``, the field named); ``RecordingError/io(path:underlying:)`` when
    ///   the manifest cannot be written.
    package static func recover(_ directory: URL) throws(RecordingError) -> Report {
        let lock = try RecordingLock(folder: directory)
        defer { lock.release() }
        // Killed while the journal was being written: a complete `manifest.json.tmp` and no
        // `manifest.json` means the write got as far as the rename.
        try ManifestWriter.settleLeftoverTemporary(in: directory)
        let manifest = try ManifestReader.read(from: directory)
        let partials = partialFiles(in: directory)
        guard manifest.stopReason == nil || !partials.isEmpty else { return Report(manifest: manifest, changed: false) }
        // Every count changes in ManifestBuilder: frames the journal counted as written that
        // are in no file are dropped `interrupted`.
        var builder = ManifestBuilder(resuming: manifest)
        // Phase 1 decides and builds; it writes nothing but new `.tmp` files of its own, so
        // a failure (e.g. no space) leaves the folder as it was. Phase 2 only renames and
        // removes.
        var plan = Plan()
        do {
            for (position, segment) in manifest.segments.enumerated() {
                let next = position + 1 < manifest.segments.count ? manifest.segments[position + 1] : nil
                try plan.decide(segment, next: next, in: directory, builder: &builder)
            }
        } catch {
            plan.discardBuilt()
            throw RecordingError.io(path: directory.path, underlying: "recover changed nothing: \(error)")
        }
        // A partial the journal does not list cannot be placed on the session clock (the
        // journal lists a segment before its file is created, so this only happens with a
        // journal write that failed): kept under a name segrec never writes.
        let listed = Set(manifest.segments.flatMap { SegmentFiles.names(of: $0.file) })
        for name in partialFiles(in: directory) where !listed.contains(name) {
            plan.steps.append(.setAside(directory.appendingPathComponent(name), .unlisted))
            builder.apply(.warning("\(name) is not in the manifest, so it cannot be placed on the session clock; kept as \(name).unlisted"))
        }
        builder.finishRecovery(rebuilt: plan.rebuilt)
        // A link, FIFO or folder put at the journal's temporary name is not segrec's: it is
        // set aside (renamed, never followed or opened) so the journal can be written.
        let leftover = directory.appendingPathComponent(ManifestWriter.temporaryFileName).path
        if SafeFile.exists(path: leftover), !OutputDirectory.isRegularFile(URL(fileURLWithPath: leftover)) {
            // link(2) takes no folder: a folder is renamed when nothing has the new name.
            var moved = (try? SafeFile.moveNoReplace(from: leftover, to: leftover + ".unlisted")) != nil
            if !moved, !SafeFile.exists(path: leftover + ".unlisted") { moved = rename(leftover, leftover + ".unlisted") == 0 }
            guard moved else {
                plan.discardBuilt()
                throw RecordingError.io(
                    path: leftover,
                    underlying: "recover changed nothing: not a regular file, and it cannot be set aside as \(ManifestWriter.temporaryFileName).unlisted")
            }
            builder.apply(
                .warning(
                    "\(ManifestWriter.temporaryFileName) was not a regular file segrec wrote (a link, FIFO or folder): kept as \(ManifestWriter.temporaryFileName).unlisted"
                ))
        }
        do { try ManifestWriter.writeTemporary(try ManifestWriter.encode(builder.manifest), in: directory) } catch {
            plan.discardBuilt()
            throw RecordingError.io(path: directory.appendingPathComponent(ManifestWriter.fileName).path, underlying: "recover changed nothing: \(error)")
        }
        // Phase 2: names only (no space needed). Finished files are durable before the
        // manifest that counts them is renamed into place; a kill in between leaves files
        // that the next run believes over the journal.
        do { try plan.carryOut() } catch {
            unlink(directory.appendingPathComponent(ManifestWriter.temporaryFileName).path)
            throw RecordingError.io(path: directory.path, underlying: "\(error); run `segrec recover` again")
        }
        try ManifestWriter.commitTemporary(in: directory)
        return Report(manifest: builder.manifest, changed: true)
    }

    /// What recovery does to the folder, decided (and the new files built) before anything
    /// is renamed or removed.
    private struct Plan {
        enum Step {
            /// Remove a file of ours that holds nothing to keep (a duplicate or empty partial,
            /// a leftover `.tmp`).
            case remove(URL)
            /// Keep an unreadable file under its name + `.why`.
            case setAside(URL, SegmentFiles.Aside)
            /// Give a rebuilt file its final name.
            case commit(RecoveredSegment)
        }
        var steps: [Step] = []
        var rebuilt: [String] = []
        private var built: [RecoveredSegment] = []

        /// Decides what happens to `segment` (followed by `next` in the manifest), building its
        /// finished file from its `.partial` when needed, and folds the outcome into `builder`.
        /// - Throws: an I/O error while building (nothing is then changed).
        mutating func decide(_ segment: SegmentRecord, next: SegmentRecord?, in directory: URL, builder: inout ManifestBuilder) throws {
            let files = SegmentFiles(segment.file, in: directory)
            let partial = files.partial
            let hasPartial = OutputDirectory.isRegularFile(partial)
            // A leftover `.tmp` (the segment's reservation, or a copy interrupted at close: the
            // partial still holds everything) is where a rebuilt file is written, in the room
            // it already holds; beside a finished file it is not needed.
            if OutputDirectory.isRegularFile(files.url), decideFinished(segment, next: next, files: files, hasPartial: hasPartial, builder: &builder) { return }
            guard hasPartial else {
                lose(segment, in: directory, builder: &builder)
                if segment.frameCount > 0 {
                    builder.apply(.warning("\(segment.file): neither the file nor its .partial exists; its \(segment.frameCount) journaled frames are lost"))
                }
                return
            }
            do {
                // A segment the recorder had closed has its exact end in the journal.
                let closedEnd = segment.sessionEnd > segment.sessionStart ? try? segment.sessionEnd.subtracting(segment.sessionStart) : nil
                let result = try SegmentRecovery.prepare(partial: partial, to: files.url, knownEnd: closedEnd.map { (segment.frameCount, $0) })
                guard let info = try? MediaFileReader(url: files.temporary).streamInfo(), info.width == segment.width, info.height == segment.height else {
                    // Not this segment's pictures (a file put in its place): kept aside, never listed.
                    SafeFile.remove(path: files.temporary.path)
                    setAsideUnreadable(
                        partial, segment,
                        RecordingError.badInput(
                            path: partial.path, field: "dimensions", detail: "not the \(segment.width)x\(segment.height) the journal lists"), builder: &builder)
                    return
                }
                built.append(result)
                let end = try result.sessionEnd(start: segment.sessionStart, knownEnd: closedEnd)
                builder.recovered(segment.file, frames: result.frameCount, end: end, bytes: result.byteCount)
                if result.audio != nil || segment.audio != nil {
                    builder.apply(.segmentAudioWritten(file: segment.file, result.audio.map(SegmentAudioRecord.init(recovered:))))
                    if result.audio == nil { builder.apply(.warning(SegmentAudioRecord.noneKeptWarning(segment.file))) }
                }
                steps.append(.commit(result))
                steps.append(.remove(partial))
                rebuilt.append(segment.file)
            } catch let error as SegmentRecoveryError where SafeFile.size(path: partial.path) == 0 {
                // Not one byte on disk (killed before the first fragment, or a power cut
                // before its first fsync): nothing to keep. Bytes that hold no frame segrec
                // can read are never deleted (they may be somebody else's file at that
                // name): they are set aside below.
                steps.append(.remove(partial))
                lose(segment, in: directory, builder: &builder)
                if segment.frameCount > 0 {
                    builder.apply(.warning("\(segment.file): no complete fragment was on disk (\(error)); its \(segment.frameCount) journaled frames are lost"))
                }
            } catch let error as SegmentWriterError {
                // Writing the rebuilt file failed (no space, EIO): change nothing.
                if case .io = error { throw error }
                setAsideUnreadable(partial, segment, error, builder: &builder)
            } catch { setAsideUnreadable(partial, segment, error, builder: &builder) }
        }

        /// `segment`'s finished file is on disk: believed over the journal when it holds at
        /// least the frames the journal counted beside a partial, else set aside.
        /// - Returns: true when that decides the segment (nothing more to do).
        private mutating func decideFinished(
            _ segment: SegmentRecord, next: SegmentRecord?, files: SegmentFiles, hasPartial: Bool, builder: inout ManifestBuilder
        ) -> Bool {
            let partial = files.partial
            // A finished file is believed over the journal (a kill between its rename and
            // the journal's next rewrite, or a power cut that kept only its name): its
            // frames and span are read from the file itself.
            // Beside a partial it must hold at least the frames the journal counted: a
            // file cut short, or somebody else's, never costs the partial's frames.
            if let found = RecordingRecovery.finishedFile(files.url, of: segment, next: next), !hasPartial || found.frames >= segment.frameCount {
                if OutputDirectory.isRegularFile(files.temporary) { steps.append(.remove(files.temporary)) }
                if hasPartial { steps.append(.remove(partial)) }  // a duplicate of the finished file
                let audio = RecordingRecovery.finishedAudio(files.url)
                if audio != segment.audio { builder.apply(.segmentAudioWritten(file: segment.file, audio)) }
                if found.frames == segment.frameCount, found.end == segment.sessionEnd {
                    builder.apply(.segmentClosed(file: segment.file, start: segment.sessionStart, end: found.end, frames: found.frames, bytes: found.bytes))
                } else {
                    builder.recovered(segment.file, frames: found.frames, end: found.end, bytes: found.bytes)
                    builder.apply(
                        .warning(
                            "\(segment.file): the journal counted \(segment.frameCount) frames, the finished file holds \(found.frames) (ending at \(DecimalSeconds.text(found.end)) s); the file is believed"
                        ))
                }
                return true
            }
            steps.append(.setAside(files.url, .unrecoverable))
            if !hasPartial {
                builder.lost(segment.file)
                builder.apply(
                    .warning(
                        "\(segment.file): the file on disk holds no readable frame (e.g. its data never reached the disk); kept as \(segment.file).unrecoverable, its \(segment.frameCount) journaled frames are lost"
                    ))
                return true
            }
            return false
        }

        /// Keeps an unreadable partial under a name segrec never writes, for whoever wants to
        /// look further.
        private mutating func setAsideUnreadable(_ partial: URL, _ segment: SegmentRecord, _ error: any Error, builder: inout ManifestBuilder) {
            steps.append(.setAside(partial, .unrecoverable))
            lose(segment, in: partial.deletingLastPathComponent(), builder: &builder)
            builder.apply(
                .warning(
                    "\(segment.file): nothing could be recovered from \(partial.lastPathComponent) (\(error)); kept as \(partial.lastPathComponent).unrecoverable"
                ))
        }

        /// Nothing of `segment` is kept: its record goes (its frames counted lost) and so does
        /// the room reserved for it (`.tmp`, which holds nothing to keep).
        private mutating func lose(_ segment: SegmentRecord, in directory: URL, builder: inout ManifestBuilder) {
            builder.lost(segment.file)
            let temporary = SegmentFiles(segment.file, in: directory).temporary
            if OutputDirectory.isRegularFile(temporary) { steps.append(.remove(temporary)) }
        }

        /// Removes every file phase 1 built (after a failure).
        func discardBuilt() { for segment in built { SegmentRecovery.discard(segment) } }

        /// Phase 2: renames and removals, in order.
        /// - Throws: the first rename that fails (later steps are not carried out).
        func carryOut() throws {
            var directories: Set<String> = []
            for step in steps {
                switch step {
                case .remove(let file):
                    SafeFile.remove(path: file.path)
                    directories.insert(file.deletingLastPathComponent().path)
                case .setAside(let file, let why): _ = SegmentFiles.setAside(file, why)
                case .commit(let segment): try SegmentRecovery.commit(segment)
                }
            }
            for directory in directories { SafeFile.syncDirectory(path: directory) }
        }
    }

    /// What a finished segment file holds, read with libavformat: its frames, where it ends on
    /// the session clock and its size; nil when it cannot be read, holds no frame, is not the
    /// journal's width and height, or a frame of it does not decode.
    ///
    /// The end is the journal's own `sessionEnd` when the file's span equals it or its
    /// `framesEnd` (rounded to the file's tick as the writer rounds it), else the next segment's `sessionStart` when the
    /// file ends there (segments tile exactly), else `sessionStart` + the file's span.
    static func finishedFile(_ url: URL, of segment: SegmentRecord, next: SegmentRecord?) -> (frames: Int, end: MediaTime, bytes: Int64)? {
        guard let info = try? MediaFileReader(url: url).streamInfo(), info.frameCount > 0, info.timeBase.num == 1, info.timeBase.den > 0,
            let end = info.presentationEnd, let size = (try? FileManager.default.attributesOfItem(atPath: url.path))?[.size] as? NSNumber
        else { return nil }
        guard info.width == segment.width, info.height == segment.height else { return nil }
        var decoded = 0
        guard (try? MediaFileReader(url: url).decodeFrames { _ in decoded += 1 }) != nil, decoded == info.frameCount else { return nil }
        let fileSpan = MediaTime(value: end, timescale: info.timeBase.den)
        func matches(_ candidate: MediaTime) -> Bool {
            guard candidate > segment.sessionStart, let span = try? candidate.subtracting(segment.sessionStart),
                let ticks = try? span.converted(toTimescale: info.timeBase.den)
            else { return false }
            let last = info.packets.map(\.pts).max() ?? 0
            return MediaTime(value: max(ticks.value, last + 1), timescale: info.timeBase.den) == fileSpan
        }
        let sessionEnd: MediaTime
        if matches(segment.sessionEnd) || segment.framesEnd.map(matches) == true {
            // Before a camera or format switch the file's pictures end at `framesEnd`.
            sessionEnd = segment.sessionEnd
        } else if let next, next.startReason != .timestampGap, matches(next.sessionStart) {
            sessionEnd = next.sessionStart
        } else if let computed = try? segment.sessionStart.adding(fileSpan.converted(toTimescale: segment.sessionStart.timescale)) {
            sessionEnd = computed
        } else {
            return nil
        }
        return (info.frameCount, sessionEnd, size.int64Value)
    }

    /// What the audio track of a finished file declares, read from the container without
    /// decoding (nil without one, or when it declares no length): the record a believed
    /// file gets in the manifest.
    static func finishedAudio(_ url: URL) -> SegmentAudioRecord? {
        guard let track = try? AudioTrackReader.describe(url), let declared = track.declaredSampleCount else { return nil }
        return SegmentAudioRecord(codec: track.codecName, sampleRate: track.sampleRate, channels: track.channelCount, sampleCount: declared)
    }

    /// The `segment-NNN.mp4.partial` (and leftover `.tmp`) regular files in `directory`,
    /// sorted (segrec never makes symlinks: one under such a name is not its file).
    static func partialFiles(in directory: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).filter {
            SegmentFiles.isUnfinishedName($0) && OutputDirectory.isRegularFile(directory.appendingPathComponent($0))
        }.sorted()
    }
}
