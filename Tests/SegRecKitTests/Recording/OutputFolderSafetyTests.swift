import Foundation
import Testing

@testable import SegRecKit
@testable import SegRecMedia
@testable import SegRecTime

/// The output folder is shared with the user's own files: segrec touches only the names it
/// writes, removes with --force only what its previous manifest lists, never follows or
/// deletes a symlink or a folder, and keeps one recording per folder (recording.lock).
@Suite("Output folder safety", .tags(.recording, .crashSafety)) struct OutputFolderSafetyTests {
    let fm = FileManager.default

    /// A previous one-frame recording in a new folder, plus the user's things around it.
    private func folderWithUserFiles() async throws -> (dir: URL, outside: URL) {
        let (dir, _) = try await RecorderTestSupport.record([EventScript().frame(0, .ratio1x1)], mode: .segment)
        let outside = try MediaTestSupport.makeTemporaryDirectory().appendingPathComponent("precious.mov")
        try Data("outside".utf8).write(to: outside)
        try fm.createDirectory(at: dir.appendingPathComponent("segment-archive.mp4"), withIntermediateDirectories: false)
        try Data("take1".utf8).write(to: dir.appendingPathComponent("segment-archive.mp4/take1.mov"))
        try Data("holiday".utf8).write(to: dir.appendingPathComponent("segment-holiday.mp4"))
        try Data("stray".utf8).write(to: dir.appendingPathComponent("segment-9.mp4.partial"))
        try fm.createSymbolicLink(atPath: dir.appendingPathComponent("segment-12.mp4").path, withDestinationPath: outside.path)
        try fm.createSymbolicLink(atPath: dir.appendingPathComponent("segment-x.mp4.partial").path, withDestinationPath: "/nonexistent/dangling")
        return (dir, outside)
    }

    private func userThingsAreIntact(_ dir: URL, _ outside: URL) throws {
        #expect(try String(contentsOf: dir.appendingPathComponent("segment-archive.mp4/take1.mov"), encoding: .utf8) == "take1")
        #expect(try String(contentsOf: dir.appendingPathComponent("segment-holiday.mp4"), encoding: .utf8) == "holiday")
        #expect(try String(contentsOf: dir.appendingPathComponent("segment-9.mp4.partial"), encoding: .utf8) == "stray")
        #expect(try fm.destinationOfSymbolicLink(atPath: dir.appendingPathComponent("segment-12.mp4").path) == outside.path)
        #expect(try fm.destinationOfSymbolicLink(atPath: dir.appendingPathComponent("segment-x.mp4.partial").path) == "/nonexistent/dangling")
        #expect(try String(contentsOf: outside, encoding: .utf8) == "outside")
    }

    /// Names that are not segrec's (a folder called segment-archive.mp4, segment-holiday.mp4,
    /// segment-9.mp4.partial, symlinks with two-digit or non-numeric names) survive a new
    /// recording with --force; the previous recording's listed files are replaced.
    @Test func forceRemovesOnlyListedFiles() async throws {
        let (dir, outside) = try await folderWithUserFiles()
        #expect(throws: RecordingError.outputExists(path: dir.path)) { try OutputDirectory(preparing: dir, force: false) }
        try userThingsAreIntact(dir, outside)
        let output = try OutputDirectory(preparing: dir, force: true)
        #expect(!fm.fileExists(atPath: dir.appendingPathComponent("segment-000.mp4").path))
        let muxer = SegmentMuxer(
            SegmentMuxer.Configuration(
                output: output, settings: RecorderTestSupport.settings, policy: .split, devices: [EventScript.front], frameIndexStamp: true))
        for i in Int64(0)..<3 { try await muxer.process(EventScript().frame(i, .ratio16x9)) }
        let manifest = try await muxer.finishReleasingLock()
        #expect(manifest.segments.map(\.frameCount) == [3])
        try userThingsAreIntact(dir, outside)
        #expect(
            try fm.contentsOfDirectory(atPath: dir.path).sorted() == [
                "manifest.json", "segment-000.mp4", "segment-12.mp4", "segment-9.mp4.partial", "segment-archive.mp4", "segment-holiday.mp4",
                "segment-x.mp4.partial"
            ])
    }

    /// A symlink (to a file outside, or dangling) or a folder under a name segrec writes,
    /// which the previous manifest does not list, is never removed or followed: --force
    /// fails naming it, and nothing at all is removed.
    @Test(arguments: ["segment-001.mp4", "segment-000.mp4.partial", "segment-005.mp4"]) func unlistedThingsUnderOurNamesStopForce(name: String) async throws {
        let (dir, outside) = try await folderWithUserFiles()
        let path = dir.appendingPathComponent(name).path
        if name == "segment-005.mp4" {
            try fm.createDirectory(atPath: path, withIntermediateDirectories: false)
        } else {
            try fm.createSymbolicLink(atPath: path, withDestinationPath: name.hasSuffix(".partial") ? "/nonexistent" : outside.path)
        }
        #expect { try OutputDirectory(preparing: dir, force: true) } throws: { error in
            guard case RecordingError.cannotCreateOutput(let errorPath, let detail) = error else { return false }
            return errorPath == path && detail.contains("not listed")
        }
        try userThingsAreIntact(dir, outside)
        // The previous recording is untouched too, and no lock file is left behind.
        #expect(fm.fileExists(atPath: dir.appendingPathComponent("segment-000.mp4").path))
        #expect(fm.fileExists(atPath: dir.appendingPathComponent("manifest.json").path))
        #expect(!fm.fileExists(atPath: dir.appendingPathComponent("recording.lock").path))
    }

    /// While a folder is being recorded, a second preparation (with or without --force)
    /// fails with the holder's pid, and removes nothing; after the first ends it succeeds.
    @Test func oneRecordingPerFolder() async throws {
        let dir = try MediaTestSupport.makeTemporaryDirectory().appendingPathComponent("out")
        let first = try OutputDirectory(preparing: dir, force: false)
        #expect(try String(contentsOf: dir.appendingPathComponent("recording.lock"), encoding: .utf8) == "\(getpid())\n")
        for force in [false, true] {
            #expect(throws: RecordingError.locked(path: dir.appendingPathComponent("recording.lock").path, pid: getpid())) {
                try OutputDirectory(preparing: dir, force: force)
            }
        }
        #expect(RecordingLock.holder(of: dir) == .some(getpid()))
        first.lock.release()
        #expect(RecordingLock.holder(of: dir) == nil)
        let second = try OutputDirectory(preparing: dir, force: false)
        second.lock.release()
    }

    /// A symlink planted at recording.lock is not followed.
    @Test func lockFileSymlinkIsRefused() async throws {
        let dir = try MediaTestSupport.makeTemporaryDirectory().appendingPathComponent("out")
        try fm.createDirectory(at: dir, withIntermediateDirectories: true)
        let target = dir.deletingLastPathComponent().appendingPathComponent("victim")
        try Data("victim".utf8).write(to: target)
        try fm.createSymbolicLink(atPath: dir.appendingPathComponent("recording.lock").path, withDestinationPath: target.path)
        #expect(throws: RecordingError.self) { try OutputDirectory(preparing: dir, force: true) }
        #expect(try String(contentsOf: target, encoding: .utf8) == "victim")
    }

    /// Links planted while recording (a shared, world-writable folder): at the next
    /// segment's `.partial` name (to a file outside, or dangling) or at its final name.
    /// segrec never writes through them: the recording stops with an error naming the
    /// path, the link and its target are untouched, the finished segment stays and verifies
    /// (the recording does not: its manifest says it failed).
    @Test(arguments: ["segment-001.mp4.partial", "segment-001.mp4"]) func linkPlantedDuringRecording(name: String) async throws {
        let script = EventScript()
        let events = script.events(count: 14, initial: .ratio9x16, changes: [(7, .ratio16x9)], completionDelay: 0)
        let (dir, muxer) = try RecorderTestSupport.makeMuxer(mode: .segment)
        let outside = try MediaTestSupport.makeTemporaryDirectory().appendingPathComponent("victim.mov")
        try Data("victim".utf8).write(to: outside)
        var failure: (any Error)?
        for (position, event) in events.enumerated() where failure == nil {
            if position == 5 { try fm.createSymbolicLink(atPath: dir.appendingPathComponent(name).path, withDestinationPath: outside.path) }
            do { try await muxer.process(event.detached()) } catch { failure = error }
        }
        // As the Recorder does: a finish that fails is followed by abort, and only then is the
        // folder's lock released (finishReleasingLock would release it before the abort's manifest).
        if failure == nil { do { _ = try await muxer.finish(reason: .endOfStream) } catch { failure = error } }
        let error = try #require(failure)
        // As the command line and the manifest show it: the folder's own path, not the
        // descriptor path the files are written through.
        let shown = muxer.configuration.output.displayText("\(error)")
        #expect(shown.contains(dir.appendingPathComponent(name).path), "\(shown)")
        let manifest = await muxer.abortReleasingLock(error: "\(error)")
        #expect(manifest.error?.contains(dir.appendingPathComponent(name).path) == true, "\(manifest.error ?? "")")
        #expect(manifest.stopReason == .error)
        #expect(manifest.segments.map(\.file) == ["segment-000.mp4"])
        #expect(manifest.segments.first?.frameCount == 7)
        #expect(manifest.frames.received == manifest.frames.written + manifest.frames.dropped)
        #expect(try fm.destinationOfSymbolicLink(atPath: dir.appendingPathComponent(name).path) == outside.path)
        #expect(try String(contentsOf: outside, encoding: .utf8) == "victim")
        #expect(try RecorderTestSupport.stampedIndices(dir.appendingPathComponent("segment-000.mp4")) == Array(0...6))
        // The kept segment verifies; the recording as a whole does not, since it failed.
        let report = try RecordingVerifier.verify(dir)
        #expect(report.segments.map(\.problems) == [[]], "\(report.problems)")
        #expect(report.problems.count == 1 && report.problems[0].hasPrefix("the manifest says the recording failed (stopReason error"), "\(report.problems)")
    }
}
