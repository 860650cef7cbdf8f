// SegmentWriter's end: finishing (flush, trailer, the faststart copy, the final name), failing and discarding the partial file.
import CFFmpeg
import Foundation
import SegRecTime

extension SegmentWriter {
    /// Flushes the encoder, gives the last frame the duration `endTime − last pts`, writes
    /// the MP4 trailer (`av_write_trailer`) and closes the partial file; with fragments,
    /// remuxes it into ``temporaryURL`` as an ordinary `faststart` MP4 (same pts, dts,
    /// durations, codec tag, extradata and rotation) and deletes it once the final file is
    /// in place. The final file gets the name ``url`` with `link(2)` (never replacing).
    ///
    /// - Parameter endTime: the segment's end relative to its start, at any timescale, after
    ///   the last frame's presentation time; rounded like a presentation time (and at least
    ///   one tick after the last frame's pts).
    /// - Returns: the summary. With no frames appended, no file is created (the partial file
    ///   is deleted) and the summary has `frameCount` 0, `byteCount` 0 and `url` nil.
    /// - Throws: ``SegmentWriterError`` for a bad `endTime` (the writer stays usable), or the
    ///   error that made an earlier call fail, or, from finishing,
    ///   ``SegmentWriterError/io(path:operation:errno:)`` (partial or temporary file),
    ///   ``SegmentWriterError/fileExists(path:)`` (``url`` appeared meanwhile; it is not
    ///   touched), ``SegmentWriterError/partialFileExists(path:)`` (something at
    ///   ``temporaryURL``), ``SegmentWriterError/renameFailed(from:to:reason:)`` or
    ///   ``FFmpegError``. On any such error nothing of ours is left under ``url`` or
    ///   ``temporaryURL``; the partial file is kept once it holds a fragment (or, unfragmented,
    ///   once its trailer is written) and after any I/O error.
    package func finish(endTime: MediaTime) throws -> SegmentWriterSummary {
        try ensureOpen()
        guard var endTicks = TrackTiming.ticks(endTime, atTimescale: timescale) else {
            throw SegmentWriterError.timeNotRepresentable(endTime, timescale: timescale)
        }
        guard let lastPTS, let lastPresentationTime else {
            discardPartialFile(reason: "finished with no frames")
            return SegmentWriterSummary(frameCount: 0, byteCount: 0, url: nil, duration: MediaTime(value: endTicks, timescale: timescale))
        }
        guard endTime > lastPresentationTime else { throw SegmentWriterError.endTimeNotAfterLastFrame(lastFrame: lastPresentationTime, endTime: endTime) }
        endTicks = max(endTicks, lastPTS + 1)
        let duration = MediaTime(value: endTicks, timescale: timescale)
        if !copiesStream { durations[lastPTS] = endTicks - lastPTS }
        do {
            if copiesStream {
                try writeHeldVideoPacket()
            } else {
                try check(avcodec_send_frame(encoder.pointer, nil), "avcodec_send_frame", context: "flush")
                try drainEncoder(writing: false)
                try writeTail(end: endTicks)
            }
            try finishAudio()
            guard packetsWritten == frameCount, durations.isEmpty else {
                throw SegmentWriterError.packetCountMismatch(frames: frameCount, packets: packetsWritten)
            }
            try FaststartRemuxer.checkIO(av_write_trailer(format.pointer), "av_write_trailer", format)
            if let failure = format.file?.flush() { throw failure }
            try format.closeFile()
            isRecoverable = true
            guard !SafeFile.exists(path: url.path) else { throw SegmentWriterError.fileExists(path: url.path) }
            let size = try remuxPartialFile(end: endTicks)
            state = .closed(reason: "finished")
            return SegmentWriterSummary(frameCount: frameCount, byteCount: size, url: url, duration: duration)
        } catch {
            fail(error)
            throw error
        }
    }

    /// Remuxes the finished partial file into ``temporaryURL`` (faststart, final sample
    /// timing), names it ``url`` and deletes the partial file. `end` is in ``timescale``
    /// ticks. Returns the final file's size.
    func remuxPartialFile(end: Int64) throws -> Int64 {
        let scan = try FaststartRemuxer.scan(path: partialURL.path)
        if let readError = scan.readError { throw readError }
        guard scan.packets.count == frameCount, scan.packets.allSatisfy(\.isComplete) else {
            throw SegmentWriterError.packetCountMismatch(frames: frameCount, packets: scan.packets.count)
        }
        guard scan.timeBase.num == fileTimeBase.num, scan.timeBase.den == fileTimeBase.den else {
            throw FFmpegError(
                call: "avformat_open_input", code: segrec_averror_invaliddata(),
                context: "\(partialURL.path): time base \(scan.timeBase.num)/\(scan.timeBase.den), expected \(fileTimeBase.num)/\(fileTimeBase.den)")
        }
        let fileEnd = av_rescale_q(end, AVRational(num: 1, den: timescale), fileTimeBase)
        // Into the reservation's blocks, through the descriptor it was created with.
        let held = reservation
        reservation = nil
        // Someone replaced the reservation (e.g. by a link): never write under that name.
        if let held, !SafeFile.name(temporaryURL.path, isFile: held.fd) { throw SegmentWriterError.partialFileExists(path: temporaryURL.path) }
        guard scan.audioPackets.count == audioPacketsWritten, scan.audioPackets.allSatisfy(\.isComplete) else {
            throw SegmentWriterError.packetCountMismatch(frames: audioPacketsWritten, packets: scan.audioPackets.count)
        }
        let (size, _) = try FaststartRemuxer.copy(
            from: partialURL.path, scan: scan, count: frameCount, end: fileEnd, to: temporaryURL.path, sizeLimit: sizeLimit, reservation: held,
            reuseExisting: held == nil, audioCount: audioPacketsWritten, audioEnd: audioSampleCount, chapters: chapters)
        do { try SafeFile.moveNoReplace(from: temporaryURL.path, to: url.path) } catch {
            SafeFile.remove(path: temporaryURL.path)
            throw error
        }
        SafeFile.remove(path: partialURL.path)
        return size
    }

    func ensureOpen() throws {
        switch state {
        case .open: return
        case .failed(let error): throw error
        case .closed(let reason): throw SegmentWriterError.notWritable(path: url.path, underlying: reason)
        }
    }

    /// Records the first failure and closes the partial file; deletes it only when the
    /// error is not an I/O error and the file holds nothing recoverable yet.
    func fail(_ error: any Error) {
        if case .open = state {
            let isIOError = if case .io = error as? SegmentWriterError { true } else { false }
            let keep = isIOError || isRecoverable || hasWrittenFragment
            try? format.closeFile()
            if !keep {
                SafeFile.remove(path: partialURL.path)
                reservation?.remove()
            }
            // Kept with the partial file: salvage or `segrec recover` finishes it in that room.
            reservation = nil
            state = .failed(error)
        }
    }

    /// Whether a fragment (not just the header) reached the partial file.
    var hasWrittenFragment: Bool { fragmentMicroseconds != nil && (format.file?.bytesWritten ?? 0) > headerBytes }

    func discardPartialFile(reason: String) {
        try? format.closeFile()
        SafeFile.remove(path: partialURL.path)
        reservation?.remove()
        reservation = nil
        state = .closed(reason: reason)
    }
}
