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
/// (`beforeKeyframe`, one event with their count).
///
/// A live source given a way to open it again (`reopen`: a URL with a
/// ``VideoSourceOptions/reconnectFor`` window) is reconnected when it goes away after
/// packets came (``LiveReopening``). The new connection's packets before its first keyframe
/// are dropped as at the start; that keyframe is placed on the session clock after the last
/// packet by the wall-clock time between them, in whole frames (at least one; its decode time
/// after the last one's), the event `liveSourceReconnected` reports the outage, and the new connection's
/// timestamps (usually back at the start) and its sound keep that offset. A keyframe whose
/// stream parameters differ from those before the outage must start a new file
/// (``EncodedPicture/startsNewFile``); a new codec, time base or copied sound format ends
/// the recording there (a warning says why). The input's first audio stream is copied
/// as sent when the MP4 muxer takes its codec (``CaptureOutputEvent/copiedAudio(_:)``, each
/// packet at `convertTime(pts, inputAudio → host)`); otherwise it is decoded and delivered
/// as ``CaptureOutputEvent/audioSampleBuffer(_:)`` events on its own timestamps
/// (``FootageAudioTiming``), to be encoded into each segment's AAC track.
package final class CopySource: CaptureOutputEventSource {
    /// The connection packets come from; nil once it ended and none came back.
    private var reader: EncodedVideoReader?
    /// The input's video time base (every connection's).
    package let timeBase: (num: Int32, den: Int32)
    /// The input as given.
    package let path: String
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
    /// Opens the source again after an outage; nil: it is not reopened.
    private let reopen: ((VideoSourceOptions) throws(MediaInputError) -> EncodedVideoReader)?
    private let stopRequest: RecordingStopRequest?
    private var stopped = false
    /// Whether the connection that ended is to be reopened (after its remarks are delivered).
    private var reconnectionDue = false
    /// A new connection whose first keyframe has not come: when the source was found gone,
    /// the connections tried, why it was gone.
    private var newConnection: (gone: ContinuousClock.Instant, attempts: Int, cause: String)?
    /// When the last video packet came.
    private var lastPacketAt: ContinuousClock.Instant?
    /// The sample descriptions of the last keyframe copied (video, sound).
    private var lastDescriptions: (EncodedStreamParameters.SampleDescription?, EncodedStreamParameters.SampleDescription?)
    /// The first connection's facts a new connection must share.
    private let first: (codec: String, audioTimeBase: (num: Int32, den: Int32), copiedAudio: String?)
    /// The sound decoder of the connection before, continued by the next one's.
    private var previousAudio: FootageAudioDecoder?
    /// Copied sound of a new connection that came before its first keyframe placed it.
    private var unplacedAudio: [EncodedAudioPacket] = []
    /// The session time of a new connection's first keyframe, until its first copied sound
    /// packet at or after it: its sound before it is left out.
    private var newConnectionStart: MediaTime?
    /// The first connection's decoded sound format, which a new connection's is converted to.
    private let soundFormat: VideoSourceOptions.AudioOutputFormat?

    /// - Parameter reopen: opens the source again after an outage (given the options to
    ///   open it with); nil: a source that ends is not reopened.
    /// - Throws: ``CaptureError/time(_:)`` for a time base the clock model rejects.
    package init(
        reader: EncodedVideoReader, stopRequest: RecordingStopRequest? = nil,
        reopen: ((VideoSourceOptions) throws(MediaInputError) -> EncodedVideoReader)? = nil
    ) throws(CaptureError) {
        self.reader = reader
        self.reopen = reopen
        self.stopRequest = stopRequest
        timeBase = reader.timeBase
        path = reader.path
        soundFormat = reader.audio.map { .init(sampleRate: $0.sampleRate, channelCount: $0.channelCount) }
        first = (reader.codecName, reader.audioTimeBase, reader.copiedAudioFormat.map { "\($0.codec) \(reader.copiedAudioSampleRate) Hz \($0.channels) ch" })
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

    package func stopRunning() {
        stopped = true
        reader?.stopReading()
    }

    package func next() throws -> sending CaptureOutputEvent? {
        while true {
            if !remarks.isEmpty { return remarks.removeFirst().detached() }
            if ended { return nil }
            if reconnectionDue {
                reconnectionDue = false
                if !reconnect() { ended = true }
                continue
            }
            guard let reader, let packet = try reader.nextPacket() else {
                collectAudio()
                try takeWaiting(knownDTS: nil)
                reportDroppedBeforeKeyframe()
                reconnectionDue = reconnects
                ended = !reconnectionDue
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
                lastPacketAt = .now
                reportDroppedBeforeKeyframe()
            case .audio(let audio):
                if newConnection != nil {
                    // Placed with the new connection's first keyframe.
                    if unplacedAudio.count >= CopiedSound.maximumHeld { unplacedAudio.removeFirst() }
                    unplacedAudio.append(audio)
                } else if let copied = try copiedAudio(audio) {
                    remarks.append(.copiedAudio(copied))
                }
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
            throw CaptureError.time(
                .overflow(operation: "timestamp of input packet \((reader?.packetsRead ?? 0) - 1) (pts \(picture.pts), dts \(picture.dts))"))
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
        var reconnection: (outage: Duration, attempts: Int, cause: String)?
        if newConnection != nil {
            guard picture.isKeyframe else {
                // A new connection's file starts at its first keyframe, as the first one's.
                index += 1
                droppedBeforeKeyframe += 1
                return nil
            }
            reconnection = try placeNewConnection(picture, pts: pts, dts: dts)
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
                    "input timestamps went back at packet \((reader?.packetsRead ?? 0) - 1) (decode time \(seconds(dts - shift)) s after \(seconds(lastDTS)) s): the copy continues one frame after the last packet, with the packets' own spacing"
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
        let (num, den) = (Int128(timeBase.num), timeBase.den)
        let deviceTime = MediaTime(value: try fit(ticks * num, picture), timescale: den)
        let sessionTime = try convertTime(deviceTime, from: deviceClock, to: .host)
        // The end on the session clock less the start, each converted from the device clock
        // (as the decoding path does), so a frame ends exactly where the next one, one
        // period later, begins: converting the period alone rounds it (1/30 s at 1/90000:
        // 33 333 333 ns, 1 ns short per frame's end).
        let end = try convertTime(MediaTime(value: try fit((ticks + Int128(frameTicks)) * num, picture), timescale: den), from: deviceClock, to: .host)
        let duration = try end.subtracting(sessionTime)
        if let reconnection {
            let attempts = "\(reconnection.attempts) connection\(reconnection.attempts == 1 ? "" : "s") tried"
            remarks.append(
                .sessionEvent(
                    .liveSourceReconnected(
                        source: path, frame: .init(index: frameIndex, sessionTime: sessionTime, deviceTime: deviceTime), outage: reconnection.outage,
                        message: "gone: \(reconnection.cause); \(attempts); the new connection's timeline starts at session time \(sessionTime.seconds) s")))
            newConnectionStart = sessionTime
            try placeUnplacedAudio()
        }
        if picture.isKeyframe { lastDescriptions = (picture.parameters?.sampleDescription, picture.audioParameters?.sampleDescription) }
        return VideoFrame(pixels: .encoded(picture), index: frameIndex, deviceTime: deviceTime, sessionTime: sessionTime, duration: duration)
    }

    /// Whether the connection that just ended is to be opened again: a live source's
    /// outage after packets came, with a window, and no stop requested.
    private var reconnects: Bool {
        guard reopen != nil, let reader, !stopped, stopRequest?.isRequested != true else { return false }
        return reader.liveEndIsOutage && reader.packetsRead > 0 && reader.options.reconnectFor > .zero
    }

    /// Closes the connection that ended and opens the source again (``LiveReopening``);
    /// false when it did not come back in the window, a stop came first, or the new
    /// connection cannot continue the copy (another codec, time base or sound format: a
    /// warning says so).
    private func reconnect() -> Bool {
        guard let ended = reader.take(), let reopen else { return false }
        // A connection that ends before its first keyframe keeps the outage that began before it.
        let gone = newConnection?.gone ?? .now
        let cause = ended.liveEnd ?? "it ended"
        var options = ended.options
        options.audioOutput = soundFormat
        if newConnection != nil {
            // Its sound was never placed (no keyframe came): it is not recorded.
            unplacedAudio = []
            _ = ended.audio?.takeDecoded()
        }
        previousAudio = ended.audio ?? previousAudio
        _ = consume ended  // closes it: a listener's port is free again
        let reopened = LiveReopening(path: path, options: options, stopRequest: stopRequest).reopen(
            gone: gone, isStopped: { self.stopped }, warningHandler: { [weak self] in self?.remarks.append(.warning($0)) }, open: reopen)
        guard let opened = reopened?.connection, let attempts = reopened?.attempts else { return false }
        let copiedAudio = opened.copiedAudioFormat.map { "\($0.codec) \(opened.copiedAudioSampleRate) Hz \($0.channels) ch" }
        let differences = [
            opened.codecName != first.codec ? "codec \(opened.codecName), the copy's \(first.codec)" : nil,
            opened.timeBase != timeBase ? "time base \(opened.timeBase.num)/\(opened.timeBase.den), the copy's \(timeBase.num)/\(timeBase.den)" : nil,
            copiedAudio != nil && (copiedAudio != first.copiedAudio || opened.audioTimeBase != first.audioTimeBase)
                ? "sound \(copiedAudio!), the copy's \(first.copiedAudio ?? "none")" : nil
        ].compactMap { $0 }
        guard differences.isEmpty else {
            remarks.append(
                .warning(
                    "\(path): the live source came back with \(differences.joined(separator: "; ")): a copy cannot change them within the recording; the recording ends there"
                ))
            return false
        }
        opened.warningHandler = { [weak self] in self?.remarks.append(.warning($0)) }
        if let sound = opened.audio {
            sound.warningHandler = { [weak self] in self?.remarks.append(.warning($0)) }
            if let before = previousAudio { sound.continuing(before) }
            if audioTiming == nil {
                remarks.append(.warning("\(path): the new connection's sound (decoded) is not the copied sound the recording holds: it is not recorded"))
            }
        }
        for note in opened.notes { remarks.append(.note("reconnected: \(note)")) }
        reader = opened
        newConnection = (gone, attempts, cause)
        return true
    }

    /// A new connection's first keyframe (`pts`, `dts`: its own timestamps): the offset
    /// that puts it the wall-clock time since the last packet, in whole frames (at least
    /// one), after the last packet's session time (its decode time at least a frame after
    /// the last one's), the stream's new reordering delay, and the reconnection to report.
    private func placeNewConnection(_ picture: EncodedPicture, pts: Int64, dts: Int64) throws -> (outage: Duration, attempts: Int, cause: String)? {
        guard let pending = newConnection.take() else { return nil }
        let now = ContinuousClock.now
        let gap = now - (lastPacketAt ?? pending.gone)
        let delay = try fit(max(0, Int128(pts) - Int128(dts)), picture)
        if let lastDTS {
            let (seconds, attoseconds) = gap.components
            let gapTicks =
                ExactArithmetic.multiplyDivide(
                    Int128(seconds) * 1_000_000_000 + Int128(attoseconds / 1_000_000_000), Int128(timeBase.den), Int128(timeBase.num) * 1_000_000_000,
                    rounding: .roundHalfAwayFromZero
                ).flatMap { Int64(exactly: $0) } ?? frameTicks
            // Whole frames (at least one) after the last packet's time: the new packets stay on
            // the stream's frame grid, so a player's guess of the rate from the timestamps'
            // common step (FFmpeg's r_frame_rate) stays the stream's across the outage.
            // A frame lasts period.num / period.den ticks exactly (33⅓ at 1/1000 and 30 fps).
            let period = (Int128(timeBase.den) * Int128(frameRate.denominator), Int128(timeBase.num) * Int128(frameRate.numerator))
            let frames = max(1, (2 * Int128(gapTicks) * period.1 + period.0) / (2 * period.0))
            let advance = (2 * frames * period.0 + period.1) / (2 * period.1)
            let lastTime = Int128(lastDTS) + Int128(reorderDelay ?? 0)
            let target = max(lastTime + max(advance, Int128(frameTicks)), Int128(lastDTS) + Int128(frameTicks) + Int128(delay))
            offset = try fit(target - Int128(pts), picture)
        }
        reorderDelay = delay
        let (video, sound) = lastDescriptions
        picture.startsNewFile = picture.parameters?.sampleDescription != video || picture.audioParameters?.sampleDescription != sound
        let offsetNanoseconds = Int128(offset) * Int128(timeBase.num) * 1_000_000_000 / Int128(timeBase.den)
        audioTiming?.startNewConnection(offsetNanoseconds: offsetNanoseconds)
        return (now - pending.gone, pending.attempts, pending.cause)
    }

    /// The new connection's copied sound that came before its first keyframe, now placed.
    private func placeUnplacedAudio() throws {
        let waiting = unplacedAudio
        unplacedAudio = []
        for audio in waiting { if let copied = try copiedAudio(audio) { remarks.append(.copiedAudio(copied)) } }
    }

    /// The copied audio packet at its session time (its pts, shifted as the pictures' are
    /// after their timestamps went back), or nil without a timestamp.
    private func copiedAudio(_ audio: EncodedAudioPacket) throws -> CopiedAudioPacket? {
        guard let clock = copiedAudioClock, audio.pts != EncodedPicture.noTimestamp else { return nil }
        let time = MediaTime(value: audio.pts * Int64(audio.timeBase.num), timescale: audio.timeBase.den)
        let shift = try convertTime(MediaTime(value: offset * Int64(timeBase.num), timescale: timeBase.den), from: deviceClock, to: .host)
        let sessionTime = try convertTime(time, from: clock, to: .host).adding(shift)
        if let start = newConnectionStart {
            // A new connection's sound starts with its first picture, as the first one's: it
            // never goes into the file before (whose track may describe other sound).
            guard sessionTime >= start else { return nil }
            newConnectionStart = nil
        }
        return CopiedAudioPacket(packet: audio, sessionTime: sessionTime)
    }

    private func seconds(_ ticks: Int64) -> String { String(format: "%.3f", Double(ticks) * Double(timeBase.num) / Double(timeBase.den)) }

    private func reportDroppedBeforeKeyframe() {
        guard droppedBeforeKeyframe > 0 else { return }
        remarks.append(.frameDropped(DroppedFrame(index: nil, reason: .beforeKeyframe, count: droppedBeforeKeyframe)))
        droppedBeforeKeyframe = 0
    }

    /// The sound decoded since the last call, as audio sample buffers (before the frames that follow).
    private func collectAudio() {
        guard let audio = reader?.audio, newConnection == nil else { return }
        guard var timing = audioTiming else {
            _ = audio.takeDecoded()  // a new connection's sound in a form the recording does not take
            return
        }
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
