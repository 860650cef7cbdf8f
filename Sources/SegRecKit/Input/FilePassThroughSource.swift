/// Pass-through recording of real footage: every decoded picture becomes a ``VideoFrame``
/// with its own size and timestamp, with no camera model in between.
///
/// The input stream's time base is the device clock (`"input"`: timescale = the time base's
/// denominator, no offset, no drift); each frame's device time is its pts, and its session
/// time is `convertTime(pts, input → host)` like any device clock's. A missing pts is
/// derived from the last known one and the frame rate (a warning says how many). Frames
/// whose time goes backwards or repeats are passed on as they are: the recorder drops and
/// counts them. Damage the decoder went past is reported in-band too: ``CaptureOutputEvent/inputDamaged(packets:)``
/// and a ``CaptureOutputEvent/frameDropped(_:)`` (`corrupt`, with the count) per run of pictures lost. A change of decoded size is a change of buffer size, which the recorder
/// turns into a new segment or a stop. Errors of the decoder come after every frame
/// decoded before the damage. What the source notices about its input (ignored streams,
/// rotation, derived timestamps, crops) is delivered in-band as
/// ``CaptureOutputEvent/note(_:)`` and ``CaptureOutputEvent/warning(_:)`` events, before
/// the frames it concerns.
///
/// When the decoder decodes the input's first audio stream (`VideoFileDecoder/audio`),
/// its sound rides the same stream as ``CaptureOutputEvent/audioSampleBuffer(_:)`` events,
/// placed on the session clock by its own timestamps (``FootageAudioTiming``), each
/// delivered before the frames decoded after it; its damaged packets count in
/// ``CaptureOutputEvent/inputDamaged(packets:)`` like the video's.
package final class FilePassThroughSource: CaptureOutputEventSource {
    /// The decoder frames come from.
    package let decoder: any FootageDecoder
    /// The input's clock.
    package let deviceClock: MediaClock
    /// Whether frames get the frame-index stamp (``FrameIndexStamp``).
    package let stampFrameIndex: Bool
    /// The frame rate used for derived timestamps and the last frame's duration.
    package let frameRate: FrameRate
    /// How the input's sound is placed on the session clock, when the decoder decodes it.
    package private(set) var audioTiming: FootageAudioTiming?

    /// Notes and warnings not yet delivered (they go before the next frame).
    private var remarks: [CaptureOutputEvent] = []
    private var deferredError: (any Error)?
    private var held: VideoFrame?
    private var pendingError: (any Error)?
    private var ended = false
    private var anchorTicks: Int64?
    private var framesSinceAnchor: Int64 = 0
    private var derivedCount = 0
    private var firstDerivedIndex: Int64?
    private var reportedCorruptPackets = 0
    private var reportedDroppedPictures = 0
    private var reportedAudioCorruptPackets = 0
    /// Device ticks added to the input's timestamps since its last discontinuity.
    private var discontinuityOffset: Int64 = 0
    /// The last timestamp handed out (device ticks, offset included).
    private var lastTicks: Int64?
    /// The picture after one whose time jumped far ahead, read early to tell an isolated
    /// damaged timestamp from a real jump (``outlierCorrected(_:pts:picture:)``), or the
    /// error reading it gave.
    private var peeked: Result<DecodedPicture?, any Error>?

    /// - Parameters:
    ///   - decoder: the opened input.
    ///   - stampFrameIndex: stamp each frame's index into rows 0–15.
    ///   - codec: the codec the frames are encoded with, for the note on interlaced input
    ///     (H.264 keeps the field order: ``EncoderSettings/fieldOrder``).
    /// - Throws: ``CaptureError/time(_:)`` for a time base the clock model rejects.
    package init(decoder: any FootageDecoder, stampFrameIndex: Bool = false, codec: VideoCodec = .h264) throws(CaptureError) {
        self.decoder = decoder
        self.stampFrameIndex = stampFrameIndex
        deviceClock = try Self.deviceClock(for: decoder)
        if let rate = decoder.frameRate {
            frameRate = rate
        } else {
            frameRate = try! FrameRate(25)
            remarks.append(.warning("the input states no frame rate: 25 fps (FFmpeg's default) is used for missing timestamps and the last frame's duration"))
        }
        for note in decoder.notes { remarks.append(.note(note)) }
        if decoder.fieldOrder.isInterlaced {
            remarks.append(
                .note(
                    codec == .h264 && decoder.streamDimensions.height % 4 != 0
                        ? "interlaced input (\(decoder.fieldOrder.description)) \(decoder.streamDimensions.height) lines high: encoded progressive (x264 encodes interlaced only at heights divisible by 4): the fields stay woven in each frame; not deinterlaced"
                        : codec == .h264
                            ? "interlaced input (\(decoder.fieldOrder.description)): encoded interlaced (x264 MBAFF), field order \(decoder.fieldOrder.isTopFieldDisplayedFirst ? "top field first" : "bottom field first") kept; not deinterlaced"
                            : "interlaced input (\(decoder.fieldOrder.description)): HEVC is encoded progressive here: the fields stay woven in each frame and the field order is not kept; not deinterlaced"
                ))
        }
        if let rotation = decoder.rotationDegrees, rotation != 0 { remarks.append(.note("input display rotation \(rotation)° kept on every segment")) }
        decoder.warningHandler = { [weak self] in self?.remarks.append(.warning($0)) }
        if let audio = decoder.audio {
            audioTiming = try FootageAudioTiming(
                timeBase: audio.timeBase, sampleRate: audio.sampleRate, allowsDiscontinuities: decoder.allowsTimestampDiscontinuities)
            audioTiming?.followsPictureDiscontinuities = decoder.allowsTimestampDiscontinuities
            audio.warningHandler = { [weak self] in self?.remarks.append(.warning($0)) }
        }
        decoder.noteHandler = { [weak self] in self?.remarks.append(.note($0)) }
    }

    /// The device clock of `decoder`'s stream: `"input"`, timescale = its time base's
    /// denominator, no offset, no drift. - Throws: ``CaptureError/time(_:)``.
    package static func deviceClock(for decoder: any FootageDecoder) throws(CaptureError) -> MediaClock {
        do { return try MediaClock(identifier: "input", timescale: decoder.timeBase.den, offsetNanoseconds: 0, driftPartsPerBillion: 0) } catch {
            throw .time(error)
        }
    }

    /// Stops reading the file: the pictures the decoder already holds are still delivered,
    /// then nil (see `VideoFileDecoder/stopReading()`).
    package func stopRunning() { decoder.stopReading() }

    package func next() throws -> sending CaptureOutputEvent? { try nextEvent()?.detached() }

    private func nextEvent() throws -> CaptureOutputEvent? {
        if let remark = takeRemark() { return remark }
        if let error = deferredError {
            deferredError = nil
            throw error
        }
        let event: CaptureOutputEvent?
        do { event = try nextFrame() } catch {
            // Deliver what was noticed before the error first.
            guard let remark = takeRemark() else { throw error }
            deferredError = error
            return remark
        }
        // Remarks found while decoding concern this frame or earlier ones: deliver them first.
        guard let remark = takeRemark() else { return event }
        if let event { remarks.append(event) }
        return remark
    }

    private func takeRemark() -> CaptureOutputEvent? { remarks.isEmpty ? nil : remarks.removeFirst() }

    private func nextFrame() throws -> CaptureOutputEvent? {
        while true {
            if ended {
                // What was decoded before the end (or an error) is delivered first.
                if let last = held {
                    held = nil
                    return .frame(try finished(last, nextSessionTime: nil))
                }
                if let error = pendingError {
                    pendingError = nil
                    throw error
                }
                return nil
            }
            let picture: DecodedPicture?
            do { picture = try takePeeked() ?? decoder.nextPicture() } catch {
                pendingError = error
                picture = nil
            }
            if let picture, let reconnection = picture.reconnection { placeNewConnection(picture, reconnection) }
            collectDamage()
            guard let picture else {
                ended = true
                deliver(audioTiming?.releaseHeld() ?? [])
                reportDerived()
                continue
            }
            let frame: VideoFrame
            do { frame = try makeFrame(picture) } catch {
                pendingError = error
                ended = true
                continue
            }
            let previous = held
            held = frame
            if let previous { return .frame(try finished(previous, nextSessionTime: frame.sessionTime)) }
        }
    }

    /// `previous` with its duration: up to the next frame; for the last frame of a clean
    /// stream read to its end, up to the container's stated end; otherwise (a damaged
    /// stream, a recording stopped before the end of its input, or a next frame that does
    /// not come after it) one frame period.
    private func finished(_ frame: VideoFrame, nextSessionTime: MediaTime?) throws -> VideoFrame {
        let duration: MediaTime
        if let next = nextSessionTime, next > frame.sessionTime {
            duration = try next.subtracting(frame.sessionTime)
        } else if nextSessionTime == nil, pendingError == nil, !decoder.wasInterrupted, let end = try streamEnd(), end > frame.sessionTime {
            duration = try end.subtracting(frame.sessionTime)
        } else {
            let periodEnd = try sessionTime(of: try frame.deviceTime.adding(framePeriod()), frame: frame.index)
            duration = try periodEnd.subtracting(frame.sessionTime)
        }
        var finished = VideoFrame(pixels: frame.pixels, index: frame.index, deviceTime: frame.deviceTime, sessionTime: frame.sessionTime, duration: duration)
        finished.pictureDescription = frame.pictureDescription
        return finished
    }

    /// The container's presentation end on the session clock, when it states one within
    /// ``jumpLimitSeconds`` after the last frame, or further when the file's sound goes on
    /// that long too (a damaged end, e.g. an MP4 fragment's `tfdt`, never sets the last
    /// frame's duration).
    private func streamEnd() throws -> MediaTime? {
        guard let end = decoder.presentationEnd, let last = lastTicks, let ticks = rawTicks(end) else { return nil }
        guard ticks > last, ticks - last <= Self.jumpLimitSeconds * Int64(deviceClock.timescale) || !soundLagsBehind(ticks) else { return nil }
        return try convertTime(MediaTime(value: ticks, timescale: deviceClock.timescale), from: deviceClock, to: .host)
    }

    /// `count` frame periods in device ticks (rounded half away from zero), nil on overflow.
    private func periodTicks(_ count: Int64) -> Int64? {
        ExactArithmetic.multiplyDivide(
            Int128(count) * Int128(deviceClock.timescale), Int128(frameRate.denominator), Int128(frameRate.numerator), rounding: .roundHalfAwayFromZero
        ).flatMap { Int64(exactly: $0) }
    }

    /// One period of the input's capture rate on the input clock, as an exact rational time,
    /// for a last frame whose end the input does not give: ``VideoFileDecoder/nominalFrameRate``
    /// (`r_frame_rate`, not the average that a long last frame or a still period drags
    /// down), else ``frameRate``.
    private func framePeriod() -> MediaTime {
        let rate = decoder.nominalFrameRate ?? frameRate
        return MediaTime(value: rate.denominator, timescale: Int32(clamping: rate.numerator))
    }

    private func makeFrame(_ picture: DecodedPicture) throws -> VideoFrame {
        let ticks = try deviceTicks(of: picture)
        let deviceTime = MediaTime(value: ticks, timescale: deviceClock.timescale)
        let sessionTime = try sessionTime(of: deviceTime, frame: picture.index)
        var pixels = picture.pixels
        if stampFrameIndex, pixels.dimensions.width >= 32, pixels.dimensions.height >= FrameIndexStamp.rows {
            // The stamp changes the pixels: the decoder's planes are copied first.
            var buffer = pixels.pixelBuffer(from: decoder.pixelBufferPool)
            FrameIndexStamp.write(
                UInt32(truncatingIfNeeded: picture.index), intoLuma: &buffer.lumaPlane, width: buffer.width, bytesPerRow: buffer.lumaBytesPerRow)
            pixels = .pixelBuffer(buffer)
        }
        // Duration is set when the next frame is known.
        var frame = VideoFrame(pixels: pixels, index: picture.index, deviceTime: deviceTime, sessionTime: sessionTime, duration: .zero)
        frame.pictureDescription = picture.pictureDescription
        if let reconnection = picture.reconnection {
            let attempts = "\(reconnection.attempts) connection\(reconnection.attempts == 1 ? "" : "s") tried"
            remarks.append(
                .sessionEvent(
                    .liveSourceReconnected(
                        source: decoder.path, frame: .init(index: picture.index, sessionTime: sessionTime, deviceTime: deviceTime), outage: reconnection.outage,
                        message: "gone: \(reconnection.cause); \(attempts); the new connection's timeline starts at session time \(sessionTime.seconds) s")))
        }
        return frame
    }

    /// `deviceTime` on the session clock (`convertTime`, input → host), when a manifest can
    /// hold it (``ManifestReader/timeRange``: within 146 years of the start at 1 ns).
    /// - Throws: ``MediaInputError/badInput(path:field:detail:)`` (`timestamps`) naming frame
    ///   `frame` when it cannot.
    private func sessionTime(of deviceTime: MediaTime, frame: Int64) throws -> MediaTime {
        if let time = try? convertTime(deviceTime, from: deviceClock, to: .host), ManifestReader.timeRange.contains(time.value) { return time }
        throw MediaInputError.badInput(
            path: decoder.path, field: "timestamps",
            detail:
                "frame \(frame) (or its end) at input time \(deviceTime.seconds) s (frame rate \(frameRate) fps) lies more than 146 years from the start; allowed: times a recording's 1 ns session clock holds (±2^62 ns)"
        )
    }

    /// Reads the next picture early (or the error reading it gives) into ``peeked``, unless
    /// one is already there.
    private func peekNextPicture() { if peeked == nil { do { peeked = .success(try decoder.nextPicture()) } catch { peeked = .failure(error) } } }

    /// The peeked picture (or its error), once; nil when none was peeked. Returns
    /// `.some(nil)` at the end of the input.
    private func takePeeked() throws -> DecodedPicture?? {
        guard let taken = peeked else { return nil }
        peeked = nil
        return .some(try taken.get())
    }

    /// How far ahead of the frame before a time may jump before it is a discontinuity
    /// (MPEG-TS, HLS) or, elsewhere, checked as a damaged timestamp: 10 s, as ffmpeg's
    /// `-dts_delta_threshold`.
    static let jumpAheadSeconds: Int64 = 10

    /// How far a picture's time may lie ahead of the file's sound, in a container without
    /// timestamp discontinuities, after a jump: 60 s. A jump ahead beyond it while the sound
    /// stayed behind is a damaged time (an MP4 fragment's `tfdt`): a discontinuity as in
    /// MPEG-TS. A jump of a file without sound, or whose sound went on with it, is a still
    /// picture, however long (a screen capture's hour). A jump back by more than 60 s is a
    /// discontinuity (Docs/footage.md).
    package static let jumpLimitSeconds: Int64 = 60

    /// Whether the file has sound and it ends more than ``jumpLimitSeconds`` before device
    /// time `ticks` (the sound read so far: the file interleaves it with the pictures).
    private func soundLagsBehind(_ ticks: Int64) -> Bool {
        guard let sound = audioTiming?.soundEnd,
            let time = try? convertTime(MediaTime(value: ticks, timescale: deviceClock.timescale), from: deviceClock, to: .host)
        else { return false }
        return Int128(time.value) - sound > Int128(Self.jumpLimitSeconds) * 1_000_000_000
    }

    /// `ticks` on the device clock as seconds with six decimals, for warnings.
    private func seconds(_ ticks: Int64) -> String { String(format: "%.6f", Double(ticks) / Double(deviceClock.timescale)) }

    /// `pts · num + discontinuityOffset` (device ticks), nil on overflow.
    private func rawTicks(_ pts: Int64) -> Int64? {
        let (raw, overflow) = pts.multipliedReportingOverflow(by: Int64(decoder.timeBase.num))
        let (ticks, overflow2) = raw.addingReportingOverflow(discontinuityOffset)
        return overflow || overflow2 ? nil : ticks
    }

    /// A time that jumps more than 10 s ahead of the frame before (or does not fit in 64
    /// bits), in a container without timestamp discontinuities, where the next picture is
    /// back within 10 s of the frame before: an isolated damaged timestamp (one flipped bit
    /// in an IVF frame header), not a jump. Such a picture gets the time one frame period
    /// after the frame before (or halfway to the next, when that is sooner), with a
    /// warning, so the frames after it are not all behind it. Nil when the time is not
    /// such an outlier; reads the next picture early only when the time jumps that far.
    private func outlierCorrected(_ ticks: Int64?, pts: Int64, picture: DecodedPicture) throws -> Int64? {
        guard !decoder.allowsTimestampDiscontinuities, let last = lastTicks else { return nil }
        let ahead = Self.jumpAheadSeconds * Int64(deviceClock.timescale)
        if let ticks, ticks <= last || ticks - last <= ahead { return nil }
        peekNextPicture()
        guard case .success(let next?) = peeked, let nextPTS = next.pts, let nextTicks = rawTicks(nextPTS), nextTicks > last, nextTicks - last <= ahead,
            let step = periodTicks(1)
        else { return nil }
        let halfway = last + (nextTicks - last) / 2
        let corrected = min(last + step, halfway)
        guard corrected > last else { return nil }
        let rule = corrected == last + step ? "one frame period after the frame before" : "halfway to the next frame"
        remarks.append(
            .warning(
                "input frame \(picture.index) has a damaged timestamp (pts \(pts), "
                    + (ticks.map { "\(seconds($0 - last)) s after the frame before" } ?? "beyond 64-bit ticks")
                    + "; the next frame is back at \(seconds(nextTicks)) s): given \(seconds(corrected)) s, \(rule)"))
        return corrected
    }

    /// The picture's time in device ticks (`pts · num` at timescale `den`), or a time
    /// derived from the last known one and the frame rate.
    private func deviceTicks(of picture: DecodedPicture) throws -> Int64 {
        let num = Int64(decoder.timeBase.num)
        if let pts = picture.pts {
            let raw = rawTicks(pts)
            let continued: Int64
            if picture.reconnection != nil, let placed = raw {
                continued = placed  // a new connection's timeline, placed by placeNewConnection
            } else if let corrected = try outlierCorrected(raw, pts: pts, picture: picture) {
                continued = corrected
            } else {
                guard let ticks = raw else { throw CaptureError.time(.overflow(operation: "input pts \(pts) × \(num)")) }
                continued = try continuingAfterDiscontinuity(ticks, picture: picture)
            }
            anchorTicks = continued
            framesSinceAnchor = 0
            lastTicks = continued
            return continued
        }
        derivedCount += 1
        if firstDerivedIndex == nil { firstDerivedIndex = picture.index }
        guard let anchor = anchorTicks else {
            let leading = try leadingTicks()
            anchorTicks = leading
            framesSinceAnchor = 0
            return leading
        }
        framesSinceAnchor += 1
        guard let offset = periodTicks(framesSinceAnchor), let value = Int64(exactly: Int128(anchor) + Int128(offset)) else {
            throw CaptureError.time(.overflow(operation: "derived timestamp of input frame \(picture.index)"))
        }
        return value
    }

    /// The time of a first picture without a timestamp: one frame period before the next
    /// picture's, when that one has a timestamp (RTSP/RTP delivers an H.264 stream's first
    /// picture before its timing is known), so it does not land far from the pictures after
    /// it; else 0 (a stream without timestamps, such as raw Annex B H.264, counts from 0).
    /// Reads the next picture early.
    private func leadingTicks() throws -> Int64 {
        peekNextPicture()
        guard case .success(let next?) = peeked, let nextPTS = next.pts, let nextTicks = rawTicks(nextPTS), let step = periodTicks(1) else { return 0 }
        let (value, overflow) = nextTicks.subtractingReportingOverflow(step)
        return overflow ? 0 : value
    }

    /// `ticks`, or — when the container allows timestamp discontinuities (MPEG-TS, HLS) and
    /// the input's time jumps back by more than 0.1 s or ahead by more than 10 s, as when
    /// an encoder restarts or captures are concatenated, or when the picture is the first
    /// of a new sequence header (FLV/RTMP: ``DecodedPicture/startsNewSequence``) and its
    /// time does not come after the last one or jumps ahead by more than 10 s — the time one frame period after
    /// the last frame, the offset kept for the frames that follow (the thresholds of
    /// ffmpeg's `-dts_delta_threshold` handling), with one warning per jump. Elsewhere a
    /// backwards time stays a per-frame fault (dropped `nonMonotonicTimestamp`).
    private func continuingAfterDiscontinuity(_ ticks: Int64, picture: DecodedPicture) throws -> Int64 {
        let newSequence = picture.startsNewSequence
        guard let last = lastTicks else { return ticks }
        let timescale = Int64(deviceClock.timescale)
        let discontinuous = decoder.allowsTimestampDiscontinuities || newSequence
        // At a new sequence header any time that does not come after the last one restarts;
        // without discontinuities only a jump beyond the limit, ahead or back, does (a time
        // less far back is dropped).
        let limit = Self.jumpLimitSeconds * timescale
        let back = newSequence ? 0 : discontinuous ? timescale / 10 : limit
        // Without discontinuities a jump ahead is a still picture (a screen capture's hour)
        // unless the file's own sound stayed behind: then the pictures' time is damaged.
        let ahead = discontinuous ? Self.jumpAheadSeconds * timescale : soundLagsBehind(ticks) ? limit : Int64.max
        let (delta, overflow) = ticks.subtractingReportingOverflow(last)
        guard overflow || delta < -back || (newSequence && delta == 0) || delta > ahead else { return ticks }
        guard let stepTicks = periodTicks(1), let continued = Int64(exactly: Int128(last) + Int128(stepTicks)),
            let offset = Int64(exactly: Int128(discontinuityOffset) + Int128(continued) - Int128(ticks))
        else { throw CaptureError.time(.overflow(operation: "timestamp discontinuity at input frame \(picture.index)")) }
        discontinuityOffset = offset
        remarks.append(
            .warning(
                "input timestamps jump at frame \(picture.index) from \(seconds(last)) s to \(seconds(ticks)) s "
                    + (newSequence
                        ? "(a restart at a new sequence header: the stream's encoder started again)"
                        : decoder.allowsTimestampDiscontinuities
                            ? ticks < last
                                ? "(back: the stream restarted, e.g. a restarted sender or encoder; a discontinuity, allowed in this container)"
                                : "(a discontinuity, allowed in this container)"
                            : "(more than \(Self.jumpLimitSeconds) s \(ticks > last ? "ahead of the file's sound: a damaged or discontinuous timestamp, not a still picture" : "back: a damaged or discontinuous timestamp"))")
                    + ": the frames that follow continue one frame period after the last"))
        // The sound of a joined encoder session takes the same offset, spliced where its pictures begin.
        if decoder.allowsTimestampDiscontinuities,
            let splice = try? convertTime(MediaTime(value: continued, timescale: deviceClock.timescale), from: deviceClock, to: .host)
        {
            deliver(audioTiming?.picturesJumped(offsetNanoseconds: Int128(offset) * 1_000_000_000 / Int128(timescale), splicePoint: Int128(splice.value)) ?? [])
        }
        return continued
    }

    /// The first picture of a live source's new connection (`reconnection`): its timeline
    /// (timestamps usually back at 0) starts on the session clock `gap` after the last frame
    /// (at least one frame period), the offset kept for the pictures and the sound that
    /// follow; a picture without a timestamp goes one frame period before the next one's.
    private func placeNewConnection(_ picture: DecodedPicture, _ reconnection: LiveReconnection) {
        guard let last = lastTicks, let step = periodTicks(1) else { return }
        let num = Int64(decoder.timeBase.num)
        var raw: Int64 = 0
        if let pts = picture.pts {
            raw = pts.multipliedReportingOverflow(by: num).overflow ? 0 : pts * num
        } else {
            peekNextPicture()
            if case .success(let next?) = peeked, let nextPTS = next.pts, !nextPTS.multipliedReportingOverflow(by: num).overflow { raw = nextPTS * num - step }
        }
        let gapTicks =
            ExactArithmetic.multiplyDivide(
                Int128(reconnection.gap.components.seconds) * 1_000_000_000 + Int128(reconnection.gap.components.attoseconds / 1_000_000_000),
                Int128(deviceClock.timescale), 1_000_000_000, rounding: .roundHalfAwayFromZero
            ).flatMap { Int64(exactly: $0) } ?? step
        let target = last &+ max(step, gapTicks)
        discontinuityOffset = target &- raw
        anchorTicks = target &- step
        framesSinceAnchor = 0
        let offsetNanoseconds = Int128(discontinuityOffset) * 1_000_000_000 / Int128(deviceClock.timescale)
        audioTiming?.startNewConnection(offsetNanoseconds: offsetNanoseconds)
    }

    /// Damage the decoder met since the last call, as in-band events (before the frames
    /// that follow it): the packets for `frames.corruptPackets`, and the pictures lost since
    /// as one run of frames dropped `corrupt` (a count, never one event per picture).
    private func collectDamage() {
        collectAudio()
        if let audio = decoder.audio, audio.corruptPackets > reportedAudioCorruptPackets {
            remarks.append(.inputDamaged(packets: audio.corruptPackets - reportedAudioCorruptPackets))
            reportedAudioCorruptPackets = audio.corruptPackets
        }
        if decoder.corruptPackets > reportedCorruptPackets {
            remarks.append(.inputDamaged(packets: decoder.corruptPackets - reportedCorruptPackets))
            reportedCorruptPackets = decoder.corruptPackets
        }
        if reportedDroppedPictures < decoder.droppedPictures {
            remarks.append(.frameDropped(DroppedFrame(index: nil, reason: .corrupt, count: decoder.droppedPictures - reportedDroppedPictures)))
            reportedDroppedPictures = decoder.droppedPictures
        }
    }

    /// The sound decoded since the last call, as audio sample buffers (before the frames
    /// that follow), with a warning before the buffer that starts a discontinuity.
    private func collectAudio() {
        guard let audio = decoder.audio, var timing = audioTiming else { return }
        for decoded in audio.takeDecoded() { deliver(timing.take(decoded)) }
        audioTiming = timing
    }

    /// Placed sound as in-band events, each warning before its buffer.
    private func deliver(_ placed: [(AudioSampleBuffer, warning: String?)]) {
        for (buffer, warning) in placed {
            if let warning { remarks.append(.warning(warning)) }
            remarks.append(.audioSampleBuffer(buffer))
        }
    }

    private func reportDerived() {
        if let damaged = audioTiming?.damagedTimestamps, damaged > 0 {
            remarks.append(
                .warning(
                    "\(damaged) input audio packet\(damaged == 1 ? "" : "s") had a timestamp more than \(FootageAudioTiming.jumpLimitSeconds) s ahead of or behind where the sound continued (damaged): placed where it continued, no silence filled in for the jump"
                ))
        }
        guard derivedCount > 0, let first = firstDerivedIndex else { return }
        remarks.append(
            .warning(
                "\(derivedCount) input frame\(derivedCount == 1 ? "" : "s") had no timestamp (first: frame \(first)); their times were derived from the frame rate \(frameRate) fps"
            ))
        derivedCount = 0
    }
}
