import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// What is kept of a segment whose writer failed.
extension SegmentMuxer {
    /// After a writer failed: a `.partial` file it kept (complete fragments, e.g. on a full
    /// disk) becomes the finished segment with the frames it holds; if even that cannot be
    /// written, the partial stays listed for `segrec recover`. Without a partial of its own
    /// (none, or one that was in the way when the writer tried to create it) the segment is
    /// gone and its frames count as `writeFailed`.
    func salvage(_ segment: FinishingSegment, after error: any Error) {
        let files = SegmentFiles(segment.file, in: configuration.output.workingURL)
        let (url, partial) = (files.url, files.partial)
        if case .partialFileExists(let path) = error as? SegmentWriterError, path == partial.path {
            // The writer never created it: whatever has that name is somebody else's.
            announce(.segmentFailed(file: segment.file, frames: segment.frames, reason: "it could not be created: \(error); that file is left as it was"))
            return
        }
        guard OutputDirectory.isRegularFile(partial) else {
            announce(.segmentFailed(file: segment.file, frames: segment.frames, reason: "it could not be finalized: \(error)"))
            return
        }
        do {
            let knownEnd = try segment.end.subtracting(segment.start)
            let recovered = try SegmentRecovery.recover(partial: partial, to: url, knownEnd: (segment.frames, knownEnd))
            unlink(partial.path)
            announce(
                .segmentSalvaged(
                    file: segment.file, frames: recovered.frameCount, end: try recovered.sessionEnd(start: segment.start, knownEnd: knownEnd),
                    bytes: recovered.byteCount, reason: "writing failed (\(error))"))
            if configuration.audio != nil {
                // The record says what the rebuilt file holds, nothing the writer had only queued.
                announce(.segmentAudioWritten(file: segment.file, recovered.audio.map(SegmentAudioRecord.init(recovered:))))
                if recovered.audio == nil { announce(.warning(SegmentAudioRecord.noneKeptWarning(segment.file))) }
            }
        } catch let recoveryError {
            var exists = stat()
            if lstat(url.path, &exists) == 0 {
                // The final name was taken by someone else's file: never claim it. The frames
                // stay on disk under a name segrec never writes.
                let aside = SegmentFiles.setAside(partial, .unfinished)
                announce(
                    .segmentFailed(
                        file: segment.file, frames: segment.frames,
                        reason: "it could not be finalized: \(error)" + (aside.map { "; its fragments are kept in \($0.lastPathComponent)" } ?? "")))
                return
            }
            announce(
                .warning(
                    "\(segment.file): writing failed (\(error)) and its complete fragments could not be rebuilt now (\(recoveryError)); \(partial.lastPathComponent) is kept: run `segrec recover \(configuration.output.url.path)` once the cause is fixed"
                ))
        }
    }
}
