// RawFrameReader's reading: FRAME lines, each picture's planes read into pool planes (or the reused frame and converted), the end of the stream and its truncation.
import CFFmpeg
import SegRecTime

extension RawFrameReader {
    /// Reads the next frame: its picture, or nil when it ended the stream (``finished``
    /// set) or a damaged `FRAME` line was skipped.
    func readPicture() throws(MediaInputError) -> DecodedPicture? {
        if readingStopped || stopRequest?.isRequested == true {
            wasInterrupted = true
            finished = true
            return nil
        }
        let frameStart = input.position
        var skipped: String?
        if format.isY4M {
            guard let line = readFrameLine() else { return nil }
            // A line of 80 bytes without its end is refused before its start is looked at.
            guard line.last == 0x0A, Y4MHeader.isFrameLine(line) else {
                // libavformat's AVERROR_INVALIDDATA: tried again from the next line.
                consecutiveBadLines += 1
                if consecutiveBadLines >= Self.maximumConsecutiveBadLines {
                    fail(
                        field: "data", detail: "the input cannot be read past packet \(picturesRead): \(FFmpegError.errorString(segrec_averror_invaliddata()))")
                    finished = true
                }
                return nil
            }
            if consecutiveBadLines > 0 { skipped = "av_read_frame: \(FFmpegError.errorString(segrec_averror_invaliddata()))" }
        }
        let pts = format.pts(atOffset: frameStart)
        let pixels: FramePixels
        do {
            guard let read = try readPlanes() else { return nil }
            pixels = read
        } catch let failure {
            endRead(on: failure)
            return nil
        }
        consecutiveBadLines = 0
        lastFrameEnd = input.position
        let seconds = Double(pts) * Double(timeBase.num) / Double(timeBase.den)
        if let skipped {
            report(damage.demuxerSkippedData(beforePacket: picturesRead, seconds: seconds, logged: skipped))
        } else {
            report(damage.packetClean(index: picturesRead))
        }
        var picture = DecodedPicture(pixels: pixels, pts: pts, decodedDimensions: streamDimensions, index: picturesRead)
        picture.pictureDescription = converter.describe(scratch.pointer, index: picturesRead)
        picturesRead += 1
        return picture
    }

    /// The next `FRAME` line, or nil when the stream ended before a whole one (the end of
    /// the input: ``finished``) or a read failed.
    private func readFrameLine() -> [UInt8]? {
        let line: [UInt8]
        do { line = try input.readLine(maximum: Y4MHeader.maximumFrameLineLength, firstRead: 6) } catch {
            endRead(on: error)
            return nil
        }
        if line.last != 0x0A && line.count < Y4MHeader.maximumFrameLineLength {
            endOfInput()
            return nil
        }
        return line
    }

    /// One picture's bytes read into its planes: pool planes it keeps (``directLayout``),
    /// or the reused frame, converted. Nil at the end of the input (a partial picture is
    /// truncation: ``endOfInput()``).
    private func readPlanes() throws(RawByteInput.Failure) -> FramePixels? {
        let layout = format.layout
        if let direct = directLayout {
            let (w, h) = (layout.width, layout.height)
            let chromaStride = PixelBuffer.minimumChromaBytesPerRow(width: w, pixelFormat: direct)
            var luma = pixelBufferPool.makePlane(byteCount: PixelBuffer.paddedLumaByteCount(bytesPerRow: w, height: h))
            var chroma = pixelBufferPool.makePlane(byteCount: PixelBuffer.paddedChromaByteCount(bytesPerRow: chromaStride, height: h, pixelFormat: direct))
            let lumaBytes = w * h
            let chromaBytes = layout.frameBytes - lumaBytes
            var got = try input.read(into: &luma, count: lumaBytes)
            if got == lumaBytes { got += try input.read(into: &chroma, count: chromaBytes) }
            guard got == layout.frameBytes else {
                endOfInput()
                return nil
            }
            var buffer = PixelBuffer(
                width: w, height: h, lumaPlane: luma, lumaBytesPerRow: w, chromaPlane: chroma, chromaBytesPerRow: chromaStride, pixelFormat: direct)
            buffer.clearPadding()
            return .pixelBuffer(buffer)
        }
        let planes = try scratchPlanes()
        let got = try input.read(into: planes, count: layout.frameBytes)
        guard got == layout.frameBytes else {
            endOfInput()
            return nil
        }
        do { return try converter.convert(scratch.pointer, index: picturesRead, path: path) } catch {
            if pendingError == nil { pendingError = error }
            finished = true
            return nil
        }
    }

    /// The reused frame's planes: one buffer of a picture's bytes plus FFmpeg's padding,
    /// laid out as the `rawvideo` decoder lays a packet (`av_image_fill_arrays`, align 1);
    /// allocated on the first picture that needs it, then the same for the whole recording.
    private func scratchPlanes() throws(RawByteInput.Failure) -> UnsafeMutablePointer<UInt8> {
        if let buffer = scratchBuffer { return buffer }
        let layout = format.layout
        guard let memory = av_malloc(layout.frameBytes + Int(PixelBuffer.planePadding)) else { throw .system("out of memory") }
        let buffer = memory.assumingMemoryBound(to: UInt8.self)
        let frame = scratch.pointer
        withUnsafeMutablePointer(to: &frame.pointee.data) { data in
            withUnsafeMutablePointer(to: &frame.pointee.linesize) { linesize in
                data.withMemoryRebound(to: UnsafeMutablePointer<UInt8>?.self, capacity: 4) { planes in
                    linesize.withMemoryRebound(to: Int32.self, capacity: 4) { strides in
                        _ = av_image_fill_arrays(planes, strides, buffer, layout.format, Int32(layout.width), Int32(layout.height), 1)
                    }
                }
            }
        }
        scratchBuffer = buffer
        return buffer
    }

    /// A read that failed: a stop while it waited on a pipe ends the stream as a stop does;
    /// any other failure ends it with an error naming it.
    func endRead(on failure: RawByteInput.Failure) {
        switch failure {
        case .interrupted: wasInterrupted = true
        case .system(let reason): fail(field: "data", detail: "the input cannot be read past packet \(picturesRead): \(reason)")
        }
        finished = true
    }

    /// The end of the input: it must end on a whole frame. Bytes after the last whole frame
    /// (a `FRAME` line and part of a picture, or part of a raw picture) are a truncated
    /// frame, named in the error; so is a YUV4MPEG2 stream with no whole frame.
    func endOfInput() {
        finished = true
        let end = input.position
        guard let last = lastFrameEnd else {
            if end > 0 { fail(field: "data", detail: "truncated: the input ends inside its first frame (no whole frame)") }
            return
        }
        let leftover = end - last
        guard leftover > 0 else { return }
        fail(
            field: "data",
            detail:
                "truncated: \(leftover) byte\(leftover == 1 ? "" : "s") left over after the last whole frame (frame \(picturesRead - 1)); \(picturesRead) whole frame\(picturesRead == 1 ? "" : "s") kept"
        )
    }
}
