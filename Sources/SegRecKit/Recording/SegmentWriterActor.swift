import Foundation
import Synchronization

/// One segment's ``SegmentWriter``, isolated to an actor that runs on its own serial queue
/// (``SerialQueueExecutor``): the analog of an `AVAssetWriterInput` that takes sample
/// buffers and encodes them on the writer's own threads, so the capture path never waits
/// for the encoder and finishing one file overlaps opening the next.
///
/// The muxer talks to it through a ``Handle``: commands go into an ordered `AsyncStream`
/// (``Handle/append(_:presentationTime:frameIndex:delivered:)`` never waits; the muxer's
/// ``FrameSlots`` bound how many pictures are queued), and ``Handle/finish(endTime:)`` /
/// ``Handle/cancel()`` end the stream. The actor's ``run()`` opens the writer (avformat +
/// encoder + header), feeds it every queued picture in order, then finishes or cancels it
/// and returns the outcome, which the muxer awaits through ``Handle/outcome``.
///
/// Errors: the first error is kept, the writer is cancelled (its partial file deleted),
/// later pictures are skipped (their slots released), ``Handle/failure`` reports the error
/// at once (the muxer throws it at its next call) and the outcome is that error.
actor SegmentWriterActor {
    /// What the muxer asks of the writer, in order. Not `Sendable` (a picture may be the
    /// decoder's buffers): each command is handed over as a `sending` value.
    enum Command {
        /// Whether it is a picture (``append(_:presentationTime:frameIndex:delivered:queued:)``), which holds a slot.
        var isPicture: Bool {
            if case .append = self { return true }
            return false
        }

        /// Encode `pixels` at `presentationTime` (relative to the segment's start).
        case append(FramePixels, presentationTime: MediaTime, frameIndex: Int64, delivered: ContinuousClock.Instant, queued: ContinuousClock.Instant)
        /// Encode sound into the audio track, after the sound given before.
        case appendAudio(AudioPCMBuffer)
        /// Write a packet of sound copied as sent at `fileTime` (relative to the segment's start).
        case appendCopiedAudio(EncodedAudioPacket, fileTime: MediaTime)
        /// Encode this many sample frames of silence, after the sound given before (written in bounded pieces).
        case appendSilence(Int64)
        /// Flush, write the trailer so the last frame ends at `endTime`, rename into place.
        case finish(endTime: MediaTime, handedOff: ContinuousClock.Instant)
        /// Give the file these chapters (file time) when it is finished.
        case chapters([MovieChapter])
        /// Abandon the segment (its partial file is deleted).
        case cancel
        /// Answer the bytes of the packets the encoder has put out, once every command
        /// before it is carried out (0 when the writer failed).
        case encodedBytes(CheckedContinuation<Int64, Never>)
        /// Appends held back by the muxer (``WriterCommandBatch``), carried out in order.
        case batch([Command])

        /// The first command a batch holds, or the command itself.
        private var first: Command? { if case .batch(let commands) = self { commands.first } else { self } }
        /// The layout of the picture an `append` carries, else nil.
        var pixelFormat: PixelBuffer.PixelFormat? { if case .append(let pixels, _, _, _, _)? = first { pixels.pixelFormat } else { nil } }
        /// The stream parameters of the copied keyframe an `append` carries (`--copy`), else nil.
        var copiedStream: EncodedStreamParameters? { if case .append(.encoded(let picture), _, _, _, _)? = first { picture.parameters } else { nil } }
        /// The parameters of the sound copied beside that keyframe, else nil.
        var copiedAudioStream: EncodedStreamParameters? { if case .append(.encoded(let picture), _, _, _, _)? = first { picture.audioParameters } else { nil } }
    }

    /// What the muxer holds of one segment's writer, on its executor.
    struct Handle {
        /// The segment's index.
        let segment: Int
        /// Ticks per second of the writer's time base.
        let timescale: Int32
        fileprivate let commands: AsyncStream<Command>.Continuation
        /// Appends held back and handed over together, or nil (each command at once).
        fileprivate let batch: WriterCommandBatch?
        fileprivate let firstError: FirstError
        /// The writer's outcome once its command stream has ended.
        let outcome: Task<Result<SegmentWriterSummary, any Error>, Never>

        /// Queues one picture (never waits). The caller holds one of `slots`; the writer
        /// releases it once the picture is consumed.
        func append(_ pixels: sending FramePixels, presentationTime: MediaTime, frameIndex: Int64, delivered: ContinuousClock.Instant) {
            send(.append(pixels, presentationTime: presentationTime, frameIndex: frameIndex, delivered: delivered, queued: .now), at: presentationTime)
        }

        /// Queues a packet of sound copied as sent (never waits).
        func appendCopiedAudio(_ packet: sending EncodedAudioPacket, fileTime: MediaTime) { send(.appendCopiedAudio(packet, fileTime: fileTime), at: fileTime) }

        /// An append at `time`: held in the batch (handed over when it is due), or handed
        /// over at once without one.
        private func send(_ command: sending Command, at time: MediaTime) {
            guard let batch else {
                commands.yield(command)
                return
            }
            if batch.add(command, at: time) { handOver() }
        }

        /// Hands the appends held back (``WriterCommandBatch``) to the writer.
        func handOver() {
            guard let batch else { return }
            let commands = batch.take()
            if !commands.isEmpty { self.commands.yield(.batch(commands)) }
        }

        /// Queues sound for the audio track (never waits).
        func appendAudio(_ pcm: AudioPCMBuffer) {
            guard pcm.frameCount > 0 else { return }
            handOver()
            commands.yield(.appendAudio(pcm))
        }

        /// Queues the file's chapters (relative to its start), written when it is finished.
        func setChapters(_ chapters: [MovieChapter]) {
            handOver()
            commands.yield(.chapters(chapters))
        }

        /// Queues `frameCount` sample frames of silence (a count: no samples held; never waits).
        func appendSilence(frameCount: Int64) {
            guard frameCount > 0 else { return }
            handOver()
            commands.yield(.appendSilence(frameCount))
        }

        /// Queues finishing the file at `endTime` (relative to its start) after the queued pictures.
        func finish(endTime: MediaTime) {
            handOver()
            commands.yield(.finish(endTime: endTime, handedOff: .now))
            commands.finish()
        }

        /// The bytes of the packets the encoder has put out for this segment, once every
        /// picture queued before the call is encoded. Call only before ``finish(endTime:)``
        /// or ``cancel()``.
        nonisolated(nonsending) func encodedBytes() async -> Int64 {
            handOver()
            return await withCheckedContinuation { commands.yield(.encodedBytes($0)) }
        }

        /// Queues abandoning the segment.
        func cancel() {
            handOver()
            commands.yield(.cancel)
            commands.finish()
        }

        /// The writer's first error so far, or nil.
        var failure: (any Error)? { firstError.error }
    }

    /// Everything a writer needs to open its file.
    struct Parameters: Sendable {
        let segment: Int
        let url: URL
        let dimensions: VideoDimensions
        let timescale: Int32
        let settings: EncoderSettings
        let displayRotationDegrees: Int?
        /// Fragment interval of the `.partial` file, or nil (see ``SegmentWriter``).
        let fragmentInterval: MediaTime?
        let firstFrameIndex: Int64
        /// How long closing the previous segment took on the capture path (statistics).
        let closeDuration: Duration?
        /// The journal, and the generation of the snapshot that lists this segment: the
        /// `.partial` file is created only once that snapshot is on disk.
        let journal: ManifestJournal?
        let journalGeneration: Int
        /// The file's `creation_time`.
        var creationTime: Date? = nil
        /// The file's `location` (ISO 6709), or nil.
        var location: String? = nil
        /// The audio track, or nil for a file without sound.
        var audio: AudioTrackSettings? = nil
    }

    private let executor: SerialQueueExecutor
    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    private let parameters: Parameters
    /// The muxer's commands, in order (its ``Handle`` holds the continuation).
    private let commands: AsyncStream<Command>
    private let slots: FrameSlots
    private let pool: PixelBufferPool
    private let statistics: RecordingStatistics?
    private let firstError: FirstError
    private var error: (any Error)?
    private var writer: SegmentWriter?

    private init(
        executor: SerialQueueExecutor, parameters: Parameters, commands: sending AsyncStream<Command>, slots: FrameSlots, pool: PixelBufferPool,
        statistics: RecordingStatistics?, firstError: FirstError
    ) {
        self.executor = executor
        self.parameters = parameters
        self.commands = commands
        self.slots = slots
        self.pool = pool
        self.statistics = statistics
        self.firstError = firstError
    }

    /// Starts a writer for one segment: it opens its file on its own executor as soon as the
    /// segment's first picture is queued (the muxer queues it with the start), with the
    /// encoder in that picture's layout.
    /// - Parameters:
    ///   - slots: released once per appended picture.
    ///   - pool: where encoded pictures' planes go back (``PixelBufferPool``).
    ///   - batch: appends held back and handed over together (``WriterCommandBatch``), or nil.
    static func start(_ parameters: Parameters, slots: FrameSlots, pool: PixelBufferPool, statistics: RecordingStatistics?, batch: WriterCommandBatch? = nil)
        -> Handle
    {
        let (stream, continuation) = AsyncStream<Command>.makeStream()
        let firstError = FirstError()
        let executor = SerialQueueExecutor(label: "segrec.segment-writer.\(parameters.segment)")
        let actor = SegmentWriterActor(
            executor: executor, parameters: parameters, commands: stream, slots: slots, pool: pool, statistics: statistics, firstError: firstError)
        let outcome = Task(executorPreference: executor) { await actor.run() }
        return Handle(
            segment: parameters.segment, timescale: parameters.timescale, commands: continuation, batch: batch, firstError: firstError, outcome: outcome)
    }

    /// Opens the writer, then carries out every command in order until the stream ends.
    private func run() async -> Result<SegmentWriterSummary, any Error> {
        if let journal = parameters.journal { await journal.waitUntilWritten(parameters.journalGeneration) }
        var iterator = commands.makeAsyncIterator()
        // The muxer queues the segment's first picture with the writer's start: the encoder
        // opens in that picture's layout (no conversion pass when it takes it).
        var next = await iterator.next(isolation: self)
        open(pixelFormat: next?.pixelFormat ?? .nv12, copying: next?.copiedStream, copyingAudio: next?.copiedAudioStream)
        // Each command is consumed before the wait for the next one: a picture kept alive
        // across that wait would still reference its planes when the encoder has released
        // them to the pool, and the producer's next write into them would copy them in full.
        while let command = next.take() {
            let isPicture = command.isPicture
            if let outcome = carryOut(consume command) { return outcome }
            // The picture's slot is released only now that the command is gone: released
            // while its pixels were still bound here, it woke a producer that took the
            // just-recycled planes from the pool while they were still shared, and its write
            // copied them in full (a raw frame stream read at one in flight: 1 picture in 4).
            if isPicture { slots.release() }
            next = await iterator.next(isolation: self)
        }
        // The stream ended without a finish (the muxer went away): abandon the file.
        writer?.cancel()
        writer = nil
        return .failure(error ?? RecordingError.invalidState("segment \(parameters.segment) was never finished"))
    }

    /// Carries out one command; returns the outcome when it ends the segment.
    private func carryOut(_ command: consuming Command) -> Result<SegmentWriterSummary, any Error>? {
        switch command {
        case .append(let buffer, let presentationTime, let frameIndex, let delivered, let queued):
            append(buffer, presentationTime: presentationTime, frameIndex: frameIndex, delivered: delivered, queued: queued)
            return nil  // the slot is released by `run()` once the command is gone
        case .appendAudio(let pcm):
            guard let writer, error == nil else { return nil }
            do { try writer.appendAudio(pcm) } catch { fail(error) }
            return nil
        case .appendCopiedAudio(let packet, let fileTime):
            guard let writer, error == nil else { return nil }
            do { try writer.appendEncodedAudio(packet, fileTime: fileTime) } catch { fail(error) }
            return nil
        case .appendSilence(let count):
            guard let writer, error == nil else { return nil }
            do { try writer.appendSilence(frameCount: count) } catch { fail(error) }
            return nil
        case .finish(let endTime, let handedOff):
            let result = finish(endTime: endTime)
            statistics?.recordFinalization(segment: parameters.segment, duration: .now - handedOff)
            return result
        case .chapters(let chapters):
            writer?.chapters = chapters
            return nil
        case .encodedBytes(let answer):
            answer.resume(returning: writer?.encodedBytes ?? 0)
            return nil
        case .cancel:
            writer?.cancel()
            writer = nil
            return .failure(error ?? RecordingError.invalidState("segment \(parameters.segment) was cancelled"))
        case .batch(let commands):
            for command in commands {
                let isPicture = command.isPicture
                _ = carryOut(command)  // appends only: none ends the segment
                if isPicture { slots.release() }
            }
            return nil
        }
    }

    /// Opens the writer with its encoder in `pixelFormat` (the first picture's layout) when
    /// the encoder takes it, or without an encoder for a copied stream (`copying`).
    private func open(pixelFormat: PixelBuffer.PixelFormat, copying: EncodedStreamParameters?, copyingAudio: EncodedStreamParameters?) {
        let start = ContinuousClock.now
        do {
            writer = try SegmentWriter(
                url: parameters.url, dimensions: parameters.dimensions, timescale: parameters.timescale, settings: parameters.settings,
                displayRotationDegrees: parameters.displayRotationDegrees, fragmentInterval: parameters.fragmentInterval, pixelFormat: pixelFormat,
                creationTime: parameters.creationTime, location: parameters.location, audio: parameters.audio, copying: copying, copyingAudio: copyingAudio)
        } catch { fail(error) }
        statistics?.segmentOpened(parameters.segment, firstFrame: parameters.firstFrameIndex, close: parameters.closeDuration, open: .now - start)
    }

    private func append(
        _ pixels: FramePixels, presentationTime: MediaTime, frameIndex: Int64, delivered: ContinuousClock.Instant, queued: ContinuousClock.Instant
    ) {
        guard let writer, error == nil else { return }
        do {
            // The planes go back to the pool (or the decoder's) once the encoder has let go of them.
            try writer.append(pixels, presentationTime: presentationTime, recyclingInto: pool)
            statistics?.frameAccepted(index: frameIndex, segment: parameters.segment, delivered: delivered, queued: queued, accepted: .now)
        } catch { fail(error) }
    }

    private func finish(endTime: MediaTime) -> Result<SegmentWriterSummary, any Error> {
        defer { writer = nil }
        if let error { return .failure(error) }
        guard let writer else { return .failure(RecordingError.invalidState("segment \(parameters.segment) has no writer")) }
        let result = Result { try writer.finish(endTime: endTime) }
        if case .failure(let error) = result { fail(error) }
        return result
    }

    /// Keeps the first error (and publishes it to the handle) and abandons the writer.
    private func fail(_ error: any Error) {
        if self.error == nil {
            self.error = error
            firstError.record(error)
        }
        writer?.cancel()
        writer = nil
    }
}

/// The first error of one segment's writer, shared between the writer (which records it)
/// and the muxer (which throws it at its next call). Thread-safe (one `Mutex`).
final class FirstError: Sendable {
    private let storage = Mutex<(any Error)?>(nil)

    /// The error recorded first, or nil.
    var error: (any Error)? { storage.withLock { $0 } }

    /// Records `error` unless one was recorded already.
    func record(_ error: any Error) { storage.withLock { if $0 == nil { $0 = error } } }
}
