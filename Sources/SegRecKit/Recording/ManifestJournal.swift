import Foundation

/// Writes the manifest journal (DESIGN.md "Crash safety": `manifest.json` rewritten at
/// every segment open and close, `stopReason: null`) off the capture path: snapshots go
/// into a stream that keeps only the newest one, and a task on a serial queue of its own
/// encodes and writes each atomically (``ManifestWriter/write(_:to:)``). A burst of
/// switches therefore costs the capture path a copy of the value, not JSON encoding and
/// file I/O, and the file on disk is always a complete, recent manifest.
///
/// The first write error (e.g. disk full) is kept in ``failure`` for the muxer to throw.
/// ``close()`` waits until the last snapshot is on disk, before the final manifest is written.
final class ManifestJournal: Sendable {
    private let snapshots: AsyncStream<RecordingManifest>.Continuation
    private let writer: Task<Void, Never>
    /// The first error of a journal write, if any.
    let failure = FirstError()

    /// Starts the journal of `directory`.
    init(directory: URL) {
        let (stream, snapshots) = AsyncStream.makeStream(of: RecordingManifest.self, bufferingPolicy: .bufferingNewest(1))
        self.snapshots = snapshots
        let failure = self.failure
        let executor = SerialQueueExecutor(label: "segrec.manifest-journal")
        writer = Task(executorPreference: executor) {
            for await manifest in stream {
                do { try ManifestWriter.write(manifest, to: directory) } catch { failure.record(error) }
            }
        }
    }

    /// Queues `manifest` to be written; an older snapshot not yet written is skipped.
    func submit(_ manifest: RecordingManifest) {
        snapshots.yield(manifest)
    }

    /// Waits until every queued snapshot is written; later ``submit(_:)`` calls are ignored.
    func close() async {
        snapshots.finish()
        await writer.value
    }
}
