import Dispatch

/// A `SerialExecutor` (and `TaskExecutor`) that runs an actor's jobs on its own serial
/// `DispatchQueue`, so that CPU-heavy work isolated to that actor (x264/x265 encoding,
/// writing a `moov`) runs on a thread of its own instead of occupying one of the
/// cooperative pool's few threads.
///
/// Use: `nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }`,
/// and start the task that drives the actor with `Task(executorPreference: executor)` so
/// that even its first step does not wait for a cooperative thread.
/// (On Apple platforms `DispatchSerialQueue` is itself an executor; corelibs-libdispatch on
/// Linux does not offer that yet.)
final class SerialQueueExecutor: SerialExecutor, TaskExecutor {
    /// The queue every job runs on.
    let queue: DispatchQueue

    /// - Parameter label: the queue's label (shown in debuggers and crash reports).
    init(label: String) { queue = DispatchQueue(label: label, qos: .userInitiated) }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let serial = asUnownedSerialExecutor()
        let task = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(isolatedTo: serial, taskExecutor: task) }
    }
}
