import Foundation
import Synchronization

/// Writes the manifest journal (Docs/reliability.md, "Crash safety": `manifest.json` rewritten at
/// every segment open and close, `stopReason: null`) off the capture path: snapshots go
/// into a stream that keeps only the newest one, and a task on a serial queue of its own
/// encodes and writes each atomically (``ManifestWriter/write(_:to:)``). A burst of
/// switches therefore costs the capture path a copy of the value, not JSON encoding and
/// file I/O, and the file on disk is always a complete, recent manifest.
///
/// Each snapshot has a generation number; ``waitUntilWritten(_:)`` lets a segment writer
/// create its `.partial` file only once a journal listing that segment is on disk, so
/// after a crash every partial file is placed on the session clock.
///
/// The first write error (e.g. disk full) is kept in ``failure`` for the muxer to throw.
/// ``close()`` waits until the last snapshot is on disk, before the final manifest is written.
final class ManifestJournal: Sendable {
    private let snapshots: AsyncStream<(RecordingManifest, Int)>.Continuation
    private let writer: Task<Void, Never>
    private let progress = JournalProgress()
    /// The first error of a journal write, if any.
    let failure = FirstError()

    /// Starts the journal of `directory`.
    init(directory: URL) {
        let (stream, snapshots) = AsyncStream.makeStream(of: (RecordingManifest, Int).self, bufferingPolicy: .bufferingNewest(1))
        self.snapshots = snapshots
        let failure = self.failure
        let progress = self.progress
        let executor = SerialQueueExecutor(label: "segrec.manifest-journal")
        writer = Task(executorPreference: executor) {
            for await (manifest, generation) in stream {
                do { try ManifestWriter.write(manifest, to: directory) } catch { failure.record(error) }
                progress.markWritten(generation)
            }
            // Closed: nobody waits any longer (a failed write was recorded above).
            progress.markWritten(.max)
        }
    }

    /// Queues `manifest` to be written; an older snapshot not yet written is skipped.
    /// - Returns: its generation, for ``waitUntilWritten(_:)``.
    @discardableResult func submit(_ manifest: RecordingManifest) -> Int {
        let generation = progress.next()
        snapshots.yield((manifest, generation))
        return generation
    }

    /// Returns once a snapshot of generation `generation` or later has been written (or
    /// its write failed, or the journal was closed).
    func waitUntilWritten(_ generation: Int) async { await progress.wait(for: generation) }

    /// Waits until every queued snapshot is written; later ``submit(_:)`` calls are ignored.
    func close() async {
        snapshots.finish()
        await writer.value
    }
}

/// Generations submitted and written of a ``ManifestJournal``, and who waits for which.
final class JournalProgress: Sendable {
    private struct State {
        var submitted = 0
        var written = 0
        var waiters: [(generation: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state = Mutex(State())

    /// The next generation number.
    func next() -> Int {
        state.withLock { state in
            state.submitted += 1
            return state.submitted
        }
    }

    /// Records that every generation up to `generation` is written; resumes their waiters.
    func markWritten(_ generation: Int) {
        let ready = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.written = max(state.written, generation)
            let written = state.written
            let ready = state.waiters.filter { $0.generation <= written }.map(\.continuation)
            state.waiters.removeAll { $0.generation <= written }
            return ready
        }
        for continuation in ready { continuation.resume() }
    }

    /// Returns once `generation` is written.
    func wait(for generation: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = state.withLock { state -> Bool in
                if state.written >= generation { return true }
                state.waiters.append((generation, continuation))
                return false
            }
            if done { continuation.resume() }
        }
    }
}
