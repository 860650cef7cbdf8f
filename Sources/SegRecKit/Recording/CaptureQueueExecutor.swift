import Dispatch

/// A `TaskExecutor` over one serial `DispatchQueue`: the capture path's own queue, the
/// analog of the queue an app hands `AVCaptureVideoDataOutput.setSampleBufferDelegate(_:queue:)`.
///
/// ``RecordingPipeline/run(progress:)`` runs with this executor as its task executor
/// preference (`withTaskExecutorPreference`), so pulling the source (rendering, decoding),
/// real-time pacing and the ``SegmentMuxer`` (a default actor, which follows the
/// preference) run on this queue instead of on the cooperative pool, where other work of
/// the process could delay a paced frame. Suspensions (back-pressure, pacing sleeps) free
/// the queue; nothing blocks it.
final class CaptureQueueExecutor: TaskExecutor {
    /// The queue every job runs on.
    let queue: DispatchQueue

    /// - Parameter label: the queue's label.
    init(label: String) {
        queue = DispatchQueue(label: label, qos: .userInitiated)
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }
}
