import Foundation
import Testing

@testable import SegRecKit
@testable import SegRecMedia
@testable import SegRecTime

#if canImport(Glibc)
    import Glibc
#endif

/// Issue 25 items 3 and 4: what a kill at the worst instants of a close or of a journal
/// write leaves, and what `recover` makes of it. The folder is put in the state the kill
/// leaves (the manifest a journal of that instant holds, the files on disk), then recovered,
/// verified and read back.
@Suite("Durable journal and finished files after a kill", .tags(.recording, .crashSafety)) struct DurableJournalTests {
    let script = EventScript()
    let fm = FileManager.default

    /// The manifest of a recording killed while its only segment was open: `stopReason`
    /// null, the segment journaled with `frames` frames and no end yet.
    private func journal(of finished: RecordingManifest, frames: Int) -> RecordingManifest {
        var journal = finished
        journal.stopReason = nil
        journal.stopTime = nil
        journal.segments[0].frameCount = frames
        journal.segments[0].sessionEnd = journal.segments[0].sessionStart
        journal.segments[0].sessionEndSeconds = journal.segments[0].sessionStartSeconds
        journal.segments[0].byteCount = 0
        journal.frames = FrameCounts(received: frames, written: frames, dropped: 0, droppedReasons: [:])
        return journal
    }

    /// Killed between the final file's rename and the journal's next rewrite: the journal
    /// says 0 frames (it was written when the segment opened) for a 30-frame file. The file
    /// is believed: its 30 frames and its end are read back, and `verify` passes (before:
    /// 0 frames, and `verify` failed for good).
    @Test func finishedFileIsBelievedOverTheJournal() async throws {
        let (dir, finished) = try await RecorderTestSupport.record(script.events(count: 30, initial: .ratio9x16, changes: [], completionDelay: 0))
        try ManifestWriter.write(journal(of: finished, frames: 0), to: dir)
        let report = try RecordingRecovery.recover(dir)
        #expect(report.changed)
        let segment = try #require(report.manifest.segments.first)
        #expect(segment.frameCount == 30)
        // The exact end was only in the lost journal: the file's span (its track ticks at
        // 1/15360 s) gives it within one tick (65 105 ns).
        let endError = try segment.sessionEnd.subtracting(finished.segments[0].sessionEnd).converted(toTimescale: 1_000_000_000)
        #expect(abs(endError.value) <= 65_105, "\(endError)")
        #expect(report.manifest.frames == FrameCounts(received: 30, written: 30, dropped: 0, droppedReasons: [:]))
        #expect(report.manifest.stopReason == .interrupted)
        #expect(try RecorderTestSupport.stampedIndices(dir.appendingPathComponent("segment-000.mp4")) == Array(0..<30))
        #expect(try RecordingVerifier.verify(dir).passed)
        #expect(try fm.contentsOfDirectory(atPath: dir.path).sorted() == ["manifest.json", "segment-000.mp4"])
        #expect(!(try RecordingRecovery.recover(dir).changed))
    }

    /// The journal counted more frames than the finished file holds (frames dropped by the
    /// writer after the journal's last rewrite): the file's count wins and the rest are
    /// dropped `interrupted`.
    @Test func journalCountingMoreThanTheFileHoldsIsCorrected() async throws {
        let (dir, finished) = try await RecorderTestSupport.record(script.events(count: 20, initial: .ratio9x16, changes: [], completionDelay: 0))
        try ManifestWriter.write(journal(of: finished, frames: 26), to: dir)
        let manifest = try RecordingRecovery.recover(dir).manifest
        #expect(manifest.segments.map(\.frameCount) == [20])
        #expect(manifest.frames == FrameCounts(received: 26, written: 20, dropped: 6, droppedReasons: ["interrupted": 6]))
        #expect(try RecordingVerifier.verify(dir).passed)
    }

    /// A power cut that kept a finished file's name but none of its data (0 bytes) and no
    /// `.partial`: the segment is not listed as kept (before: exit 0 and listed); the empty
    /// file is kept aside under a name segrec never writes.
    @Test func emptyFinishedFileIsNotKept() async throws {
        let (dir, finished) = try await RecorderTestSupport.record(script.events(count: 12, initial: .ratio9x16, changes: [], completionDelay: 0))
        try ManifestWriter.write(journal(of: finished, frames: 12), to: dir)
        #expect(truncate(dir.appendingPathComponent("segment-000.mp4").path, 0) == 0)
        let manifest = try RecordingRecovery.recover(dir).manifest
        #expect(manifest.segments.isEmpty)
        #expect(manifest.frames == FrameCounts(received: 12, written: 0, dropped: 12, droppedReasons: ["interrupted": 12]))
        #expect(manifest.recovery?.framesLost == 12)
        #expect(manifest.warnings.contains { $0.contains("segment-000.mp4") && $0.contains("no readable frame") })
        #expect(try fm.contentsOfDirectory(atPath: dir.path).sorted() == ["manifest.json", "segment-000.mp4.unrecoverable"])
    }

    /// Killed during the very first journal write, after the temporary file was complete and
    /// before its rename: no `manifest.json`, a complete `manifest.json.tmp`. `recover` uses
    /// it (before: exit 66) and completes the recording.
    @Test func completeTemporaryManifestIsUsedWhenTheManifestIsMissing() async throws {
        let (dir, finished) = try await RecorderTestSupport.record(script.events(count: 15, initial: .ratio9x16, changes: [], completionDelay: 0))
        let manifestURL = dir.appendingPathComponent(ManifestWriter.fileName)
        try fm.removeItem(at: manifestURL)
        try ManifestWriter.encode(journal(of: finished, frames: 15)).write(to: dir.appendingPathComponent(ManifestWriter.temporaryFileName))
        #expect(!fm.fileExists(atPath: manifestURL.path))
        let manifest = try RecordingRecovery.recover(dir).manifest
        #expect(manifest.segments.map(\.frameCount) == [15])
        #expect(manifest.stopReason == .interrupted)
        #expect(try fm.contentsOfDirectory(atPath: dir.path).sorted() == ["manifest.json", "segment-000.mp4"])
        #expect(try RecordingVerifier.verify(dir).passed)
    }

    /// Killed in the middle of writing the temporary file: half a manifest in
    /// `manifest.json.tmp`. With the previous `manifest.json` there, recover uses that and
    /// removes the leftover; without one, it names the missing manifest (66) and leaves the
    /// half-written file alone.
    @Test func halfWrittenTemporaryManifestIsNeverUsed() async throws {
        let (dir, finished) = try await RecorderTestSupport.record(script.events(count: 10, initial: .ratio9x16, changes: [], completionDelay: 0))
        let temporary = dir.appendingPathComponent(ManifestWriter.temporaryFileName)
        let whole = try ManifestWriter.encode(journal(of: finished, frames: 10))
        try ManifestWriter.write(journal(of: finished, frames: 10), to: dir)
        try whole.prefix(whole.count / 2).write(to: temporary)
        let manifest = try RecordingRecovery.recover(dir).manifest
        #expect(manifest.segments.map(\.frameCount) == [10])
        #expect(try fm.contentsOfDirectory(atPath: dir.path).sorted() == ["manifest.json", "segment-000.mp4"])

        try fm.removeItem(at: dir.appendingPathComponent(ManifestWriter.fileName))
        try whole.prefix(whole.count / 2).write(to: temporary)
        #expect(throws: RecordingError.inputNotFound(path: dir.appendingPathComponent(ManifestWriter.fileName).path)) { try RecordingRecovery.recover(dir) }
        #expect(try Data(contentsOf: temporary) == whole.prefix(whole.count / 2))
    }

    /// The journal writes only segrec's names: a leftover temporary file (a regular file) is
    /// replaced, a symbolic link at that name is refused with the file named and nothing is
    /// written through it; after each successful write the folder holds `manifest.json` and
    /// no temporary file.
    @Test func manifestWriteUsesOnlyItsOwnTemporaryName() throws {
        let dir = try MediaTestSupport.makeTemporaryDirectory()
        let temporary = dir.appendingPathComponent(ManifestWriter.temporaryFileName)
        var manifest = RecordingManifest(mode: .segment, devices: [], encoder: EncoderInfo(RecorderTestSupport.settings))
        manifest.notes = ["first"]
        try Data("{\"half".utf8).write(to: temporary)
        try ManifestWriter.write(manifest, to: dir)
        #expect(try fm.contentsOfDirectory(atPath: dir.path) == [ManifestWriter.fileName])
        #expect(try ManifestReader.read(from: dir).notes == ["first"])

        let target = dir.appendingPathComponent("elsewhere")
        try Data("theirs".utf8).write(to: target)
        try fm.createSymbolicLink(at: temporary, withDestinationURL: target)
        manifest.notes = ["second"]
        #expect { try ManifestWriter.write(manifest, to: dir, inPlaceWhenFull: false) } throws: { error in
            guard case .io(let path, let underlying) = error as? RecordingError else { return false }
            return path == temporary.path && underlying.contains("not a regular file")
        }
        #expect(try Data(contentsOf: target) == Data("theirs".utf8))
        #expect(try ManifestReader.read(from: dir).notes == ["first"])
    }
}
