/// A stream recorded as it was sent (`segrec record --copy`): every video packet becomes a
/// ``VideoFrame`` whose pixels are the packet itself (``FramePixels/encoded(_:)``), with the
/// size its codec's parser read at the last keyframe; nothing is decoded or encoded.
///
/// Times follow the footage rules (Docs/footage.md): the input's time base is the device
/// clock `"input"`, and a frame's session time is `convertTime(t, input → host)` of its
/// decode time plus the stream's reordering delay (the first keyframe's pts − dts), so
/// frames arrive in decode order with increasing times and a keyframe's time is its own pts.
/// A missing pts or dts is taken from the other (both missing: the last dts plus a frame).
/// A decode time that goes back or repeats (a restarted sender, concatenated captures) is
/// shifted to continue one frame after the last, with a warning: packets keep their data
/// and their relative spacing; copied sound is shifted by as much from then on.
///
/// Pictures before the first keyframe cannot start a file: they are dropped
/// (`beforeKeyframe`, one event with their count). The input's first audio stream is copied
/// as sent when the MP4 muxer takes its codec (``CaptureOutputEvent/copiedAudio(_:)``, each
/// packet at `convertTime(pts, inputAudio → host)`); otherwise it is decoded and delivered
/// as ``CaptureOutputEvent/audioSampleBuffer(_:)`` events on its own timestamps
/// (``FootageAudioTiming``), to be encoded into each segment's AAC track.
package final class CopySource: CaptureOutputEventSource {
    /// The reader packets come from.
    package let reader: EncodedVideoReader
    /// The input's clock.
    package let deviceClock: MediaClock
    /// The nominal frame rate (the input's, else 25 fps).
    package let frameRate: FrameRate
    /// How the input's sound is placed on the session clock, when it is decoded.
    package private(set) var audioTiming: FootageAudioTiming?
    /// The copied audio stream's clock (`inputAudio`), when its packets are copied.
    package let copiedAudioClock: MediaClock?

    private var remarks: [CaptureOutputEvent] = []
    private var index: Int64 = 0
    /// Pictures dropped before the first keyframe, not yet reported.
    private var droppedBeforeKeyframe = 0
    /// The first keyframe's pts − dts (input ticks), once it came.
    private var reorderDelay: Int64?
    /// Ticks added to the input's timestamps since the last time they went back.
    private var offset: Int64 = 0
    private var lastDTS: Int64?
    /// The first packets, while none had a decode time (``takeWaiting(knownDTS:)``).
    private var waitingForDTS: [EncodedPicture] = []
    private var ended = false
    /// One frame at ``frameRate``, in input ticks (at least 1).
    private let frameTicks: Int64

    /// - Throws: ``CaptureError/time(_:)`` for a time base the clock model rejects.
    package init(reader: EncodedVideoReader) throws(CaptureError) {
        self.reader = reader
        do { deviceClock = try MediaClock(identifier: "input", timescale: reader.timeBase.den, offsetNanoseconds: 0, driftPartsPerBillion: 0) } catch {
            throw .time(error)
        }
        if let rate = reader.frameRate {
            frameRate = rate
        } else {
            frameRate = try! FrameRate(25)
            remarks.append(.warning("the input states no frame rate: 25 fps (FFmpeg's default) is used for missing timestamps and the last frame's duration"))
        }
        let ticks = Int128(reader.timeBase.den) * Int128(frameRate.denominator) / (Int128(reader.timeBase.num) * Int128(frameRate.numerator))
        frameTicks = Int64(clamping: max(1, ticks))
        for note in reader.notes { remarks.append(.note(note)) }
        if reader.copiedAudioSampleRate > 0 {
            do {
                copiedAudioClock = try MediaClock(identifier: "inputAudio", timescale: reader.audioTimeBase.den, offsetNanoseconds: 0, driftPartsPerBillion: 0)
            } catch { throw .time(error) }
        } else {
            copiedAudioClock = nil
        }
        if let audio = reader.audio {
            audioTiming = try FootageAudioTiming(
                timeBase: audio.timeBase, sampleRate: audio.sampleRate, allowsDiscontinuities: reader.allowsTimestampDiscontinuities)
            audio.warningHandler = { [weak self] in self?.remarks.append(.warning($0)) }
        }
        reader.warningHandler = { [weak self] in self?.remarks.append(.warning($0)) }
    }

    package func stopRunning() { reader.stopReading() }

    package func next() throws -> sending CaptureOutputEvent? {
        while true {
            if !remarks.isEmpty { return remarks.removeFirst().detached() }
            if ended { return nil }
            guard let packet = try reader.nextPacket() else {
                ended = true
                collectAudio()
                try takeWaiting(knownDTS: nil)
                reportDroppedBeforeKeyframe()
                continue
            }
            collectAudio()
            switch consume packet {
            case .video(let picture):
                // The first packets of some inputs (Matroska, with B-frames) have no decode
                // time: they wait for the first that has one, which their own are counted back from.
                if lastDTS == nil, picture.dts == EncodedPicture.noTimestamp, picture.pts != EncodedPicture.noTimestamp,
                    waitingForDTS.count < Self.maximumWaitingForDTS
                {
                    waitingForDTS.append(picture)
                    continue
                }
                try takeWaiting(knownDTS: picture.dts == EncodedPicture.noTimestamp ? nil : picture.dts)
                if let frame = try frame(for: picture) { remarks.append(.frame(frame)) }
                reportDroppedBeforeKeyframe()
            case .audio(let audio): if let copied = try copiedAudio(audio) { remarks.append(.copiedAudio(copied)) }
            }
        }
    }

    /// Packets without a decode time held before the first that has one, at most.
    static let maximumWaitingForDTS = 32

    /// Gives the packets waiting for a decode time theirs, one frame apart, ending one frame
    /// before `knownDTS` (the next packet's; nil: at the end, ending at their earliest pts),
    /// and queues their frames.
    private func takeWaiting(knownDTS: Int64?) throws {
        guard !waitingForDTS.isEmpty else { return }
        let waiting = waitingForDTS
        waitingForDTS = []
        let last = knownDTS.map { $0 - frameTicks } ?? waiting.map(\.pts).min()!
        for (k, picture) in waiting.enumerated() {
            picture.dts = last - Int64(waiting.count - 1 - k) * frameTicks
            if let frame = try frame(for: picture) { remarks.append(.frame(frame)) }
        }
        if !waiting.isEmpty {
            remarks.append(
                .note(
                    "the input's first \(waiting.count) packet\(waiting.count == 1 ? "" : "s") had no decode time: counted back one frame apart from the next packet's"
                ))
        }
    }

    /// `value` as 64-bit ticks.
    /// - Throws: ``CaptureError/time(_:)`` (an overflow naming the packet) when it does not
    ///   fit: a damaged timestamp near the 64-bit limit ends the copy with an error, never a trap.
    private func fit(_ value: Int128, _ picture: EncodedPicture) throws -> Int64 {
        guard let ticks = Int64(exactly: value) else {
            throw CaptureError.time(.overflow(operation: "timestamp of input packet \(reader.packetsRead - 1) (pts \(picture.pts), dts \(picture.dts))"))
        }
        return ticks
    }

    /// The frame for `picture`, or nil when it comes before the first keyframe (counted).
    private func frame(for picture: EncodedPicture) throws -> VideoFrame? {
        let nopts = EncodedPicture.noTimestamp
        var (pts, dts) = (picture.pts, picture.dts)
        if pts == nopts && dts == nopts {
            dts = try fit(Int128(lastDTS ?? -frameTicks) + Int128(frameTicks) - Int128(offset), picture)
            pts = dts
        } else if pts == nopts {
            pts = dts
        } else if dts == nopts {
            dts = pts
        }
        pts = try fit(Int128(pts) + Int128(offset), picture)
        dts = try fit(Int128(dts) + Int128(offset), picture)
        if let lastDTS, dts <= lastDTS {
            let shift = try fit(Int128(lastDTS) + Int128(frameTicks) - Int128(dts), picture)
            offset = try fit(Int128(offset) + Int128(shift), picture)
            pts = try fit(Int128(pts) + Int128(shift), picture)
            dts = try fit(Int128(dts) + Int128(shift), picture)
            remarks.append(
                .warning(
                    "input timestamps went back at packet \(reader.packetsRead - 1) (decode time \(seconds(dts - shift)) s after \(seconds(lastDTS)) s): the copy continues one frame after the last packet, with the packets' own spacing"
                ))
        }
        picture.pts = pts
        picture.dts = dts
        lastDTS = dts
        let frameIndex = index
        index += 1
        if reorderDelay == nil {
            guard picture.isKeyframe else {
                droppedBeforeKeyframe += 1
                return nil
            }
            reorderDelay = try fit(max(0, Int128(pts) - Int128(dts)), picture)
        }
        let ticks = Int128(dts) + Int128(reorderDelay ?? 0)
        let (num, den) = (Int128(reader.timeBase.num), reader.timeBase.den)
        let deviceTime = MediaTime(value: try fit(ticks * num, picture), timescale: den)
        let sessionTime = try convertTime(deviceTime, from: deviceClock, to: .host)
        // The end on the session clock less the start, each converted from the device clock
        // (as the decoding path does), so a frame ends exactly where the next one, one
        // period later, begins: converting the period alone rounds it (1/30 s at 1/90000:
        // 33 333 333 ns, 1 ns short per frame's end).
        let end = try convertTime(MediaTime(value: try fit((ticks + Int128(frameTicks)) * num, picture), timescale: den), from: deviceClock, to: .host)
        let duration = try end.subtracting(sessionTime)
        return VideoFrame(pixels: .encoded(picture), index: frameIndex, deviceTime: deviceTime, sessionTime: sessionTime, duration: duration)
    }

    /// The copied audio packet at its session time, or nil without a timestamp.
    /// The copied audio packet at its session time (its pts, shifted as the pictures' are
    /// after their timestamps went back), or nil without a timestamp.
    private func copiedAudio(_ audio: EncodedAudioPacket) throws -> CopiedAudioPacket? {
        guard let clock = copiedAudioClock, audio.pts != EncodedPicture.noTimestamp else { return nil }
        let time = MediaTime(value: audio.pts * Int64(audio.timeBase.num), timescale: audio.timeBase.den)
        let shift = try convertTime(MediaTime(value: offset * Int64(reader.timeBase.num), timescale: reader.timeBase.den), from: deviceClock, to: .host)
        return CopiedAudioPacket(packet: audio, sessionTime: try convertTime(time, from: clock, to: .host).adding(shift))
    }

    private func seconds(_ ticks: Int64) -> String { String(format: "%.3f", Double(ticks) * Double(reader.timeBase.num) / Double(reader.timeBase.den)) }

    private func reportDroppedBeforeKeyframe() {
        guard droppedBeforeKeyframe > 0 else { return }
        remarks.append(.frameDropped(DroppedFrame(index: nil, reason: .beforeKeyframe, count: droppedBeforeKeyframe)))
        droppedBeforeKeyframe = 0
    }

    /// The sound decoded since the last call, as audio sample buffers (before the frames that follow).
    private func collectAudio() {
        guard let audio = reader.audio, var timing = audioTiming else { return }
        for decoded in audio.takeDecoded() {
            let (buffer, warning) = timing.buffer(for: decoded)
            if let warning { remarks.append(.warning(warning)) }
            remarks.append(.audioSampleBuffer(buffer))
        }
        audioTiming = timing
    }
}

/// A packet of the input's sound copied as sent, at its session time.
package struct CopiedAudioPacket {
    /// The packet.
    package let packet: EncodedAudioPacket
    /// Its pts on the session clock.
    package let sessionTime: MediaTime

    /// The same packet as a value that shares nothing with this one; nil when memory runs out.
    package func detached() -> sending CopiedAudioPacket? {
        guard let copy = packet.referenced() else { return nil }
        return CopiedAudioPacket(packet: copy, sessionTime: sessionTime)
    }
}
