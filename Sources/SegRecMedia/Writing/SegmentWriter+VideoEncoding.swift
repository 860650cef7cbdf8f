// SegmentWriter's video track: pictures into the encoder, packets out of it, timed and written to the partial file.
import CFFmpeg
import Foundation
import SegRecTime

extension SegmentWriter {
    /// Encodes one picture held in segrec's planes: the ``FramePixels`` overload
    /// with ``FramePixels/pixelBuffer(_:)``.
    package func append(_ buffer: PixelBuffer, presentationTime: MediaTime, recyclingInto pool: PixelBufferPool? = nil) throws {
        try append(FramePixels.pixelBuffer(buffer), presentationTime: presentationTime, recyclingInto: pool)
    }

    /// Encodes one picture.
    ///
    /// - Parameters:
    ///   - pixels: NV12 or yuv420p picture of ``dimensions`` (any strides). In the encoder's
    ///     pixel format it reaches the encoder without a copy: a ``PixelBuffer`` with FFmpeg's
    ///     padding as read-only `AVBufferRef`s around its planes, a ``DecodedFrameBuffer`` by
    ///     `av_frame_ref` of the decoder's buffers.
    ///   - pool: where a ``PixelBuffer``'s planes go once the encoder is done with them (at
    ///     once when they were copied; when the encoder releases them when they were
    ///     referenced); nil: they are simply released. A decoder's buffers go back to the
    ///     decoder's pool when the last reference goes.
    ///   - presentationTime: relative to the segment's start (first frame normally 0), at any
    ///     timescale; rounded to the nearest tick of ``timescale`` (half away from zero), or
    ///     the tick after the previous frame's when it would not come after it. The first
    ///     frame is forced to be a keyframe (`AV_PICTURE_TYPE_I`, IDR).
    /// - Throws: ``SegmentWriterError/dimensionsMismatch(expected:got:)``,
    ///   ``SegmentWriterError/timeNotRepresentable(_:timescale:)`` (the tick count does not
    ///   fit in Int64),
    ///   ``SegmentWriterError/nonIncreasingPresentationTime(previous:got:)`` (these leave the
    ///   writer usable), ``SegmentWriterError/io(path:operation:errno:)`` when writing the
    ///   partial file fails (e.g. ENOSPC while a fragment is cut), or ``FFmpegError`` from
    ///   `avcodec_send_frame` / `avcodec_receive_packet` / `av_write_frame`. After those the
    ///   writer has failed (``finish(endTime:)`` rethrows the error) and its partial file is
    ///   kept or deleted as the type's documentation says.
    package func append(_ pixels: FramePixels, presentationTime: MediaTime, recyclingInto pool: PixelBufferPool? = nil) throws {
        if case .encoded(let picture) = pixels { return try appendEncoded(picture, presentationTime: presentationTime) }
        try ensureOpen()
        guard pixels.dimensions == dimensions else { throw SegmentWriterError.dimensionsMismatch(expected: dimensions, got: pixels.dimensions) }
        guard var pts = TrackTiming.ticks(presentationTime, atTimescale: timescale), pts < Int64.max else {
            throw SegmentWriterError.timeNotRepresentable(presentationTime, timescale: timescale)
        }
        if let lastPresentationTime, let lastPTS {
            guard presentationTime > lastPresentationTime else {
                throw SegmentWriterError.nonIncreasingPresentationTime(previous: lastPresentationTime, got: presentationTime)
            }
            pts = max(pts, lastPTS + 1)
        } else if presentationTime < .zero {
            throw SegmentWriterError.nonIncreasingPresentationTime(previous: nil, got: presentationTime)
        }
        do {
            let input = try encoderFrame(for: pixels, recyclingInto: pool)
            defer { if input === referenceFrame { av_frame_unref(input.pointer) } }
            let isFirst = lastPTS == nil
            let f = input.pointer
            f.pointee.pts = pts
            f.pointee.pict_type = isFirst ? AV_PICTURE_TYPE_I : AV_PICTURE_TYPE_NONE
            f.pointee.key_frame = isFirst ? 1 : 0
            f.pointee.interlaced_frame = fieldFlags.0
            f.pointee.top_field_first = fieldFlags.1
            if let lastPTS { durations[lastPTS] = pts - lastPTS }
            lastPTS = pts
            lastPresentationTime = presentationTime
            frameCount += 1
            try check(avcodec_send_frame(encoder.pointer, f), "avcodec_send_frame", context: partialURL.path)
            try drainEncoder()
        } catch {
            fail(error)
            throw error
        }
    }

    /// The frame that carries `buffer` to the encoder: ``referenceFrame`` over the picture's
    /// own planes when the encoder takes its layout and the planes carry FFmpeg's padding
    /// (the planes go to `pool` when released); else ``frame`` with the pixels copied or
    /// converted into it (the planes go to `pool` at once).
    func encoderFrame(for pixels: FramePixels, recyclingInto pool: PixelBufferPool?) throws -> Frame {
        let buffer: PixelBuffer
        switch pixels {
        case .pixelBuffer(let own): buffer = own
        case .decoded(let decoded):
            if decoded.pixelFormat.avPixelFormat == encoderPixelFormat {
                try check(av_frame_ref(referenceFrame.pointer, decoded.frame.pointer), "av_frame_ref", context: partialURL.path)
                return referenceFrame
            }
            // Another layout than the encoder's: converted below, from a copy.
            buffer = decoded.copyToPixelBuffer(from: pool ?? PixelBufferPool())
        case .encoded: throw SegmentWriterError.notWritable(path: partialURL.path, underlying: "an encoded picture reached the encoder")
        }
        let format = buffer.pixelFormat.avPixelFormat
        if format == encoderPixelFormat, buffer.hasPlanePadding {
            try referenceFrame.reference(buffer, recyclingInto: pool)
            return referenceFrame
        }
        try frame.makeWritable()
        if format == encoderPixelFormat {
            frame.copyPlanes(from: buffer)
        } else {
            let scaler =
                try scalers[format] ?? ScaleContext(width: dimensions.width, height: dimensions.height, source: format, destination: encoderPixelFormat)
            scalers[format] = scaler
            try scaler.convert(buffer, into: frame)
        }
        pool?.recycle(buffer)
        return frame
    }

    /// Receives every packet the encoder has ready (`avcodec_receive_packet` until EAGAIN or
    /// EOF) and, when `writing`, writes in decode order those whose duration is known
    /// (otherwise all stay pending for ``writeTail(end:)``).
    func drainEncoder(writing: Bool = true) throws {
        while true {
            let received = avcodec_receive_packet(encoder.pointer, packet.pointer)
            if received == segrec_averror_eagain() || received == segrec_averror_eof() { break }
            try check(received, "avcodec_receive_packet", context: partialURL.path)
            encodedBytes += Int64(packet.pointer.pointee.size)
            if writing, pending.isEmpty, durations[packet.pointer.pointee.pts] != nil {
                try write(packet)
            } else {
                pending.append(try Packet(movingFrom: packet))
            }
        }
        while writing, let first = pending.first, durations[first.pointer.pointee.pts] != nil {
            try write(first)
            pending.removeFirst()
        }
    }

    /// Writes the flushed tail of the stream into the partial file, each packet with its
    /// presentation duration (the last presented one lasting until `end`). The finished
    /// file's decode times and sample durations are chosen by ``FaststartRemuxer``.
    func writeTail(end: Int64) throws {
        if packetsWritten == 0 && !hasHeldVideoPacket { repairDecodeTimes(of: pending) }
        while let first = pending.first {
            try write(first)
            pending.removeFirst()
        }
        try writeHeldVideoPacket()
    }

    /// Gives a segment whose every packet comes out at the flush valid decode times when
    /// the encoder's are not: libx265 3.5 leaves a packet's dts uninitialized (garbage,
    /// e.g. 803859814218082527) when a segment has fewer frames than its B-frame delay,
    /// which the mov muxer refuses ("pts (0) < dts (…)"). The k-th packet in decode order
    /// then gets the k-th presentation time minus the span of all of them, so decode times
    /// increase strictly and none is after its own pts. Left alone when the encoder's
    /// decode times already increase, none is after its pts and none is before it by more
    /// than twice the frames' span.
    func repairDecodeTimes(of packets: [Packet]) {
        guard !packets.isEmpty else { return }
        let presentation = packets.map(\.pointer.pointee.pts).sorted()
        let span = presentation[presentation.count - 1] - presentation[0]
        var previous = Int64.min
        var valid = true
        for packet in packets {
            let p = packet.pointer.pointee
            // A real reordering delay never exceeds the span of the frames it reorders
            // (twice, for the delay before the first and the last packet).
            if p.dts == segrec_av_nopts_value() || p.dts > p.pts || p.dts <= previous || p.pts.subtractingReportingOverflow(p.dts).partialValue > 2 * span + 1
                || p.pts.subtractingReportingOverflow(p.dts).overflow
            {
                valid = false
                break
            }
            previous = p.dts
        }
        guard !valid else { return }
        for (k, packet) in packets.enumerated() { packet.pointer.pointee.dts = presentation[k] - span }
    }

    /// Sets the packet's duration from the pts → duration map and rescales it to the
    /// stream's time base, then writes the packet held before it (`av_write_frame`) and
    /// holds this one (its data moved into ``heldVideoPacket``).
    ///
    /// A packet is written with its decode duration, the next packet's dts minus its own, not
    /// its presentation duration: a fragment the audio track cuts (`frag_duration`) ends the
    /// video track's run with its last packet's duration, and the mov muxer starts the next
    /// run (`tfdt`) there. A presentation duration there (B-frames: it differs from the decode
    /// step) would put the next fragment's first dts off its own; the muxer then drops that
    /// packet's pts (its composition offset becomes 0). The last packet keeps its
    /// presentation duration (``writeHeldVideoPacket()``); the finished file's durations come
    /// from `FaststartRemuxer` either way.
    func write(_ packet: Packet) throws {
        let p = packet.pointer
        guard let duration = durations.removeValue(forKey: p.pointee.pts) else {
            av_packet_unref(p)
            throw SegmentWriterError.unexpectedPacketTimestamp(pts: p.pointee.pts)
        }
        p.pointee.duration = duration
        p.pointee.stream_index = stream.pointee.index
        av_packet_rescale_ts(p, encoder.pointer.pointee.time_base, stream.pointee.time_base)
        if hasHeldVideoPacket {
            let held = heldVideoPacket.pointer
            if p.pointee.dts != segrec_av_nopts_value(), held.pointee.dts != segrec_av_nopts_value(), p.pointee.dts > held.pointee.dts {
                held.pointee.duration = p.pointee.dts - held.pointee.dts
            }
            do { try writeHeldVideoPacket() } catch {
                av_packet_unref(p)
                throw error
            }
        }
        av_packet_move_ref(heldVideoPacket.pointer, p)
        hasHeldVideoPacket = true
    }

    /// Writes the held video packet (`av_write_frame`) with the duration it has, then
    /// unreferences it.
    func writeHeldVideoPacket() throws {
        guard hasHeldVideoPacket else { return }
        let h = heldVideoPacket.pointer
        hasHeldVideoPacket = false
        defer { av_packet_unref(h) }
        let written = av_write_frame(format.pointer, h)
        // Fragments reach the kernel as soon as the muxer cuts them.
        if let failure = format.file?.flush() { throw failure }
        try check(written, "av_write_frame", context: partialURL.path)
        packetsWritten += 1
    }
}
