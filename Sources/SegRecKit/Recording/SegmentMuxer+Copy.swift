// SegmentMuxer for a stream copied as sent (`--copy`): files start at keyframes, each with the input's own time base.
extension SegmentMuxer {
    /// `decision` for a frame (`copied`: what it is when it is a copied packet), kept to
    /// keyframes: a packet that is not a keyframe cannot start a file, so a cut there (a
    /// segment limit reached, a timestamp gap) waits for the next keyframe and the frame is
    /// appended to the open segment. (A copied stream's size changes only at keyframes: the
    /// parser reads it there.) A keyframe that must start a new file although its size is
    /// the open one's (a live source's new connection with other stream parameters:
    /// ``EncodedPicture/startsNewFile``) cuts there (`streamParametersChanged`), the open
    /// file's last frame lasting until it.
    func atKeyframes(_ decision: SegmentBoundaryRule.Decision, copied: VideoFrame.CopiedPacket?, at time: MediaTime) -> SegmentBoundaryRule.Decision {
        guard current != nil, let copied else { return decision }
        switch decision {
        case .cut where !copied.isKeyframe: return .append
        case .append where copied.startsNewFile: return .cut(.streamParametersChanged, closingAt: time)
        default: return decision
        }
    }
}

extension VideoFrame {
    /// What the muxer needs to know of a copied packet (``FramePixels/encoded(_:)``).
    struct CopiedPacket: Sendable {
        /// Whether it is a keyframe.
        let isKeyframe: Bool
        /// Whether a new file must start at it (``EncodedPicture/startsNewFile``).
        let startsNewFile: Bool
        /// The input stream's time base denominator when its numerator is 1 (a copied
        /// segment's track ticks at it, so the packets keep their timestamps' spacing
        /// exactly), else nil.
        let timescale: Int32?
    }

    /// The copied packet's facts, nil for a picture.
    var copiedPacket: CopiedPacket? {
        guard case .encoded(let picture) = pixels else { return nil }
        let base = picture.timeBase
        return CopiedPacket(
            isKeyframe: picture.isKeyframe, startsNewFile: picture.isKeyframe && picture.startsNewFile,
            timescale: base.num == 1 && base.den > 0 ? base.den : nil)
    }
}

/// The format of sound copied as sent (`--copy`), for each segment's `audio` record.
package struct CopiedAudioFormat: Sendable, Equatable {
    /// FFmpeg's codec name (`aac`, `opus`, …).
    package var codec: String
    /// Sample frames per second.
    package var sampleRate: Int
    /// Channels.
    package var channels: Int

    package init(codec: String, sampleRate: Int, channels: Int) {
        self.codec = codec
        self.sampleRate = sampleRate
        self.channels = channels
    }
}

/// Sound copied as sent, held until the frames after it say which segment it belongs to.
/// Packets stay whole: a packet goes into the segment open when a frame at or after its end
/// comes (or when the segment closes at or after its end); one that straddles a file
/// boundary, or comes before the first file's start, is left out. So each file holds the
/// packets of its own span and its `sampleCount` never exceeds the span.
struct CopiedSound {
    /// Packets held at most (about 21 s of AAC at 48 kHz): while no picture comes (a sender
    /// sending only sound), the oldest go into the open segment, or are not recorded before
    /// the first one.
    static let maximumHeld = 1024
    var pending: [CopiedAudioPacket] = []
    /// The open segment's first copied packet's time and its last one's end, in sample
    /// ticks of the file (as its writer rounds them): the track's length is their difference
    /// (a gap in the sender's sound lies inside it, as in the track).
    var firstTick: Int64?
    var endTick: Int64 = 0
}

extension CopiedAudioPacket {
    /// Where its sound ends on the session clock (nanoseconds, rounded down).
    var sessionEnd: MediaTime {
        let nanoseconds = Int128(packet.sampleCount) * 1_000_000_000 / Int128(max(1, packet.sampleRate))
        return (try? sessionTime.adding(MediaTime(value: Int64(clamping: nanoseconds), timescale: 1_000_000_000))) ?? sessionTime
    }
}

extension SegmentMuxer {
    func receiveCopiedAudio(_ audio: sending CopiedAudioPacket) {
        announce(.audioReceived(samples: Int(audio.packet.sampleCount)))
        copiedSound.pending.append(audio)
        while copiedSound.pending.count > CopiedSound.maximumHeld {
            let oldest = copiedSound.pending.removeFirst()
            if let segment = current { write(oldest, into: segment) }
        }
    }

    /// Hands the held packets that end at or before `time` to the open segment's writer
    /// (those starting before its start, or with no segment open, are not recorded).
    func flushCopiedAudio(before time: MediaTime) {
        while let first = copiedSound.pending.first, first.sessionEnd <= time {
            copiedSound.pending.removeFirst()
            if let segment = current { write(first, into: segment) }
        }
    }

    /// Before `segment` closes at `end`: its last held packets that end by then (one that
    /// starts before `end` and ends after it is left out), and its `audio` record.
    func finishCopiedAudio(of segment: OpenSegment, at end: MediaTime) {
        guard let format = configuration.copiedAudio else { return }
        while let first = copiedSound.pending.first, first.sessionTime < end {
            copiedSound.pending.removeFirst()
            if first.sessionEnd <= end { write(first, into: segment) }
        }
        let samples = copiedSound.firstTick.map { copiedSound.endTick - $0 } ?? 0
        let record = SegmentAudioRecord(codec: format.codec, sampleRate: format.sampleRate, channels: format.channels, sampleCount: samples)
        copiedSound.firstTick = nil
        copiedSound.endTick = 0
        announce(.segmentAudioWritten(file: segment.file, record))
    }

    private func write(_ audio: CopiedAudioPacket, into segment: OpenSegment) {
        guard audio.sessionTime >= segment.sessionStart, let fileTime = try? audio.sessionTime.subtracting(segment.sessionStart), let packet = audio.detached()
        else { return }
        let rate = Int32(clamping: packet.packet.sampleRate)
        guard let tick = TrackTiming.ticks(fileTime, atTimescale: rate), tick >= copiedSound.endTick else { return }
        copiedSound.firstTick = copiedSound.firstTick ?? tick
        copiedSound.endTick = tick + packet.packet.sampleCount
        segment.writer.appendCopiedAudio(packet.packet, fileTime: fileTime)
    }
}

extension ManifestReader {
    /// The `audio` record of a segment copied as sent (`--copy`): a codec the MP4 muxer
    /// takes (``EncodedVideoReader/copyableAudioCodecs``), a sample rate of 1 Hz to 768 kHz,
    /// 1 to 64 channels, and a sample count in range.
    static func checkCopiedAudio(_ audio: SegmentAudioRecord, at field: String, path: String) throws(RecordingError) {
        guard EncodedVideoReader.copyableAudioCodecs.contains(audio.codec) else {
            throw .badInput(
                path: path, field: "\(field).codec",
                detail: "\(Excerpt.of(audio.codec)) is not allowed; allowed: \(EncodedVideoReader.copyableAudioCodecs.sorted().joined(separator: ", "))")
        }
        for (name, value, range) in [
            ("sampleRate", Int64(audio.sampleRate), Int64(1)...768_000), ("channels", Int64(audio.channels), 1...64),
            ("sampleCount", audio.sampleCount, 0...maximumCount)
        ] where !range.contains(value) {
            throw .badInput(path: path, field: "\(field).\(name)", detail: "\(value) is out of range; allowed \(range.lowerBound)...\(range.upperBound)")
        }
    }
}
