import Dispatch
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A `SerialExecutor` (and `TaskExecutor`) that runs every job on one thread of its own,
/// started by the executor and ended by ``shutdown()``: the capture side of a recording
/// that reads a file as fast as the encoder takes it (``RecordingPipeline/readsOnOneThread``).
///
/// Why one thread and not a serial `DispatchQueue` (``SerialQueueExecutor``): a serial
/// queue's blocks run on whichever of libdispatch's worker threads is free, and glibc gives
/// each thread that allocates its own malloc arena. The capture side allocates the
/// demuxer's packets (3 MiB at 1080p, `av_malloc`'s `posix_memalign`), which live until the
/// segment's encoder has copied them; spread over two arenas, each arena grows its own set
/// of them (a `perf probe` on `av_malloc` counted 37 distinct blocks for a 300-frame 1080p
/// file read on two worker threads). On one thread they come from one arena.
///
/// Jobs run in the order they were enqueued. The thread blocks (a semaphore) only while it
/// has nothing to run; it never runs on the cooperative pool.
final class ThreadExecutor: SerialExecutor, TaskExecutor {
    /// The jobs not yet run, in order; nil asks the thread to end.
    private final class Jobs: Sendable {
        let queue = Mutex<[UnownedJob?]>([])
        let available = DispatchSemaphore(value: 0)

        func push(_ job: UnownedJob?) {
            queue.withLock { $0.append(job) }
            available.signal()
        }

        func pop() -> UnownedJob? {
            available.wait()
            return queue.withLock { $0.removeFirst() }
        }
    }

    private let jobs = Jobs()
    /// The thread's name (shown by debuggers and `top -H`).
    let name: String

    /// Starts the thread.
    /// - Parameter name: the thread's name.
    init(name: String) {
        self.name = name
        // The thread holds the executor until ``shutdown()``.
        let thread = Thread { [self] in
            // The kernel's name (`top -H`, `perf`), from the thread itself: Foundation's
            // `Thread.name` reaches the kernel only once `start()` has stored the thread.
            Self.setKernelName(name)
            let serial = asUnownedSerialExecutor()
            let task = asUnownedTaskExecutor()
            while let job = jobs.pop() { job.runSynchronously(isolatedTo: serial, taskExecutor: task) }
        }
        thread.qualityOfService = .userInitiated
        thread.start()
    }

    func enqueue(_ job: consuming ExecutorJob) { jobs.push(UnownedJob(job)) }

    /// Names the calling thread for the kernel (`/proc/thread-self/comm`, 15 bytes at most).
    private static func setKernelName(_ name: String) {
        let fd = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { return }
        let bytes = Array(name.utf8.prefix(15))
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
    }

    /// Ends the thread once the jobs enqueued before have run. Enqueue nothing after it.
    func shutdown() { jobs.push(nil) }
}
