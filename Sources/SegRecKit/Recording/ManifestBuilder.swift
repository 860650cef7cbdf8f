import Foundation

/// Folds ``SegmentMuxerEvent``s into a ``RecordingManifest``: a pure value with no I/O, the
/// one place that keeps the segment records and the frame accounting
/// (`received == written + dropped`, by construction: every frame is announced once as
/// written or dropped, and a failed segment's frames move from written to
/// dropped `writeFailed`). `segrec recover` completes a journaled manifest through it too.
package struct ManifestBuilder: Sendable {
    /// The manifest as it stands.
    package private(set) var manifest: RecordingManifest
    /// Session events that arrived after the recording stopped taking frames
    /// (stop-on-change): left out of `events`, counted in a note when the recording finishes.
    package private(set) var ignoredSessionEvents = 0
    /// Session events left out when the recording finished because their session time is
    /// after its end (`stopTime`), e.g. during a format switch's gap that ran past the end.
    package private(set) var sessionEventsAfterEnd = 0
    /// Frames the journal counted as written that `segrec recover` found in no file.
    private var framesLostInRecovery = 0

    /// Starts an empty manifest (`stopReason: null` until the recording ends, no segment).
    /// - Parameters:
    ///   - mode: the recording mode the manifest names.
    ///   - devices: the device clocks frames were captured on.
    ///   - encoder: the settings every segment uses.
    ///   - frameIndexStamp: whether every frame carries the frame-index stamp.
    ///   - recordsSessionEvents: whether the manifest has an `events` list (several-camera
    ///     recordings; default false, leaving it out).
    ///   - deviceControls: camera controls by clock id, for the `devices` entries (default none).
    ///   - recordedAt: the wall clock at session start (the manifest's `recordedAt`), or nil.
    ///   - segmentLimits: the limits the recording splits at, or nil for none.
    package init(
        mode: RecordingMode, devices: [MediaClock], encoder: EncoderSettings, frameIndexStamp: Bool, recordsSessionEvents: Bool = false,
        deviceControls: [String: DeviceControlInfo] = [:], recordedAt: Date? = nil, segmentLimits: SegmentLimits? = nil
    ) {
        manifest = RecordingManifest(
            mode: mode, devices: devices.map { DeviceInfo(clock: $0, controls: deviceControls[$0.identifier]) }, encoder: EncoderInfo(encoder))
        manifest.frameIndexStamp = frameIndexStamp
        manifest.recordedAt = recordedAt.map(RecordingManifest.timestamp)
        manifest.segmentLimits = segmentLimits
        if recordsSessionEvents { manifest.events = [] }
    }

    /// A recording whose segments copy the input's packets (`--copy`): nothing is encoded,
    /// so the manifest names no encoder.
    package mutating func copiesStream() { manifest.encoder = nil }

    /// Applies one event.
    package mutating func apply(_ event: SegmentMuxerEvent) {
        switch event {
        case .segmentOpened(let record): manifest.segments.append(record)
        case .frameWritten:
            // Frames only go into the open segment, which is always the last record.
            manifest.frames.received += 1
            manifest.frames.written += 1
            if !manifest.segments.isEmpty { manifest.segments[manifest.segments.count - 1].frameCount += 1 }
        case .frameDropped(let reason, let count):
            manifest.frames.received += count
            manifest.frames.drop(reason, count: count)
        case .changeAttached(let file, let change): if let position = position(of: file) { manifest.segments[position].change = change }
        case .segmentEnded(let file, let end, let framesEnd):
            guard let position = position(of: file) else { return }
            manifest.segments[position].sessionEnd = end
            manifest.segments[position].sessionEndSeconds = end.seconds
            manifest.segments[position].framesEnd = framesEnd
            manifest.segments[position].framesEndSeconds = framesEnd?.seconds
            manifest.stopTime = end
        case .segmentClosed(let file, _, _, _, let bytes): if let position = position(of: file) { manifest.segments[position].byteCount = bytes }
        case .segmentFailed(let file, let frames, let reason):
            if let position = position(of: file) {
                manifest.segments.remove(at: position)
                manifest.stopTime = manifest.segments.last?.sessionEnd
            }
            unwrite(frames, as: .writeFailed)
            manifest.warnings.append("\(file) was removed: \(reason)")
        case .segmentSalvaged(let file, let frames, let end, let bytes, let reason):
            guard let position = position(of: file) else { return }
            let lost = rebuild(position, frames: frames, end: end, bytes: bytes, losing: .writeFailed)
            if position == manifest.segments.count - 1 { manifest.stopTime = end }
            manifest.warnings.append("\(file): \(reason); rebuilt from its complete fragments: \(frames) frames kept, \(lost) lost")
        case .note(let note): manifest.notes.append(note)
        case .warning(let warning): manifest.warnings.append(warning)
        case .sessionEvent(let record):
            // After a stop-on-change stop no frame is taken, so nothing the session does
            // later belongs to this recording.
            guard manifest.stopReason?.isChange != true else {
                ignoredSessionEvents += 1
                return
            }
            // In place (amortized O(1)): `events` is in session order, stable for equal
            // times; an event logged ahead of its time moves back past the later ones.
            if manifest.events == nil { manifest.events = [] }
            Self.insertInSessionOrder(record, into: &manifest.events!)
        case .inputDamaged(let packets): manifest.frames.corruptPackets = (manifest.frames.corruptPackets ?? 0) + packets
        case .audioReceived(let samples):
            var counts = AudioCounts(received: (manifest.audio?.received ?? 0) + Int64(samples), written: manifest.audio?.written ?? 0)
            counts.buffers = (manifest.audio?.buffers ?? 0) + 1
            manifest.audio = counts
        case .segmentAudioWritten(let file, let record):
            guard let position = position(of: file) else { return }
            // A segment rebuilt by recovery replaces the record it had: counted once.
            let before = manifest.segments[position].audio?.sampleCount ?? 0
            manifest.segments[position].audio = record
            guard record != nil || manifest.audio != nil else { return }
            let written = (manifest.audio?.written ?? 0) - before + (record?.sampleCount ?? 0)
            var counts = AudioCounts(received: manifest.audio?.received ?? 0, written: written)
            counts.buffers = manifest.audio?.buffers
            manifest.audio = counts
        case .stopped(let reason, let time):
            manifest.stopReason = reason
            manifest.stopTime = time
        case .finished(let reason, let error):
            // A recording that stopped on a change keeps that reason unless it failed later.
            if !(manifest.stopReason?.isChange == true && reason != .error) { manifest.stopReason = reason }
            manifest.error = error
            dropSessionEventsAfterEnd()
            if ignoredSessionEvents > 0 {
                manifest.notes.append(
                    "\(ignoredSessionEvents) session event\(ignoredSessionEvents == 1 ? "" : "s") after the recording stopped taking frames \(ignoredSessionEvents == 1 ? "is" : "are") not in events"
                )
            }
        }
    }

    /// Inserts `record` after every event whose session time is not after its own
    /// (searching from the end: events mostly arrive in order).
    static func insertInSessionOrder(_ record: SessionEventRecord, into events: inout [SessionEventRecord]) {
        var position = events.endIndex
        while position > events.startIndex, events[position - 1].sessionTime > record.sessionTime { position -= 1 }
        events.insert(record, at: position)
    }

    /// Removes (and counts, in a note) the events after the recording's end, `stopTime`:
    /// only what happened while it recorded is listed.
    private mutating func dropSessionEventsAfterEnd() {
        guard let end = manifest.stopTime else { return }
        var dropped = 0
        while let last = manifest.events?.last, last.sessionTime > end {
            manifest.events!.removeLast()
            dropped += 1
        }
        guard dropped > 0 else { return }
        sessionEventsAfterEnd += dropped
        manifest.notes.append(
            "\(dropped) session event\(dropped == 1 ? "" : "s") after the end of the recording (stopTime \(DecimalSeconds.text(end)) s) \(dropped == 1 ? "is" : "are") not in events"
        )
    }

    /// Frames accounted so far (written + dropped).
    package var accountedFrames: Int { manifest.frames.written + manifest.frames.dropped }

    private func position(of file: String) -> Int? { manifest.segments.lastIndex { $0.file == file } }

    /// `frames` frames counted as written are in no file: they are dropped `reason`.
    private mutating func unwrite(_ frames: Int, as reason: DropReason) {
        manifest.frames.written -= frames
        for _ in 0..<frames { manifest.frames.drop(reason) }
    }

    /// The segment at `position` was rebuilt from its complete fragments: it holds `frames`
    /// frames, ends at `end` and has `bytes` bytes. Frames it counted but no longer holds are
    /// dropped `reason`; frames it holds beyond its count (written after the journal's last
    /// rewrite, found by `segrec recover`) are received and written.
    /// - Returns: the frames dropped.
    private mutating func rebuild(_ position: Int, frames: Int, end: MediaTime, bytes: Int64, losing reason: DropReason) -> Int {
        let counted = manifest.segments[position].frameCount
        manifest.segments[position].frameCount = frames
        manifest.segments[position].sessionEnd = end
        manifest.segments[position].sessionEndSeconds = end.seconds
        if let framesEnd = manifest.segments[position].framesEnd, framesEnd >= end {
            manifest.segments[position].framesEnd = nil
            manifest.segments[position].framesEndSeconds = nil
        }
        manifest.segments[position].byteCount = bytes
        let found = max(0, frames - counted)
        let lost = max(0, counted - frames)
        manifest.frames.received += found
        manifest.frames.written += found
        unwrite(lost, as: reason)
        return lost
    }
}

// MARK: Recovery (`segrec recover`, ``RecordingRecovery``)

extension ManifestBuilder {
    /// Resumes the manifest a recording journaled (`stopReason: null`, or `error`), to fold
    /// what recovery finds on disk into it.
    init(resuming journal: RecordingManifest) { manifest = journal }

    /// Segment `file` was rebuilt from its `.partial` file's complete fragments: it holds
    /// `frames` frames and ends at `end`; frames the journal counted for it beyond those are
    /// dropped `interrupted` (and counted in `recovery.framesLost`), frames it holds beyond
    /// the journal's count are received and written.
    mutating func recovered(_ file: String, frames: Int, end: MediaTime, bytes: Int64) {
        guard let position = position(of: file) else { return }
        framesLostInRecovery += rebuild(position, frames: frames, end: end, bytes: bytes, losing: .interrupted)
    }

    /// Nothing of segment `file` is on disk: its record goes and the frames the journal
    /// counted for it are dropped `interrupted` (and counted in `recovery.framesLost`).
    mutating func lost(_ file: String) {
        guard let position = position(of: file) else { return }
        let frames = manifest.segments.remove(at: position).frameCount
        unwrite(frames, as: .interrupted)
        framesLostInRecovery += frames
    }

    /// Completes a recovered manifest: `stopTime` is the last kept segment's end (`recovery.lostAfter`),
    /// `stopReason` is `interrupted` unless the journal has one (a recording that failed, e.g.
    /// on a full disk, keeps `error`), and `recovery` lists the `rebuilt` files and counts the
    /// frames kept and lost.
    mutating func finishRecovery(rebuilt: [String]) {
        manifest.stopTime = manifest.segments.last?.sessionEnd
        if manifest.stopReason == nil { manifest.stopReason = .interrupted }
        manifest.recovery = RecoveryInfo(
            lostAfter: manifest.stopTime, lostAfterSeconds: manifest.stopTime?.seconds, recoveredFiles: rebuilt, framesRecovered: manifest.frames.written,
            framesLost: framesLostInRecovery)
    }
}

extension StopReason {
    /// Whether the recording stopped on a change of the stream (stop-on-change mode).
    var isChange: Bool { self == .dimensionsChanged || self == .cameraSwitched || self == .formatChanged }
}

extension EncoderInfo {
    init(_ settings: EncoderSettings) {
        self.init(
            codec: settings.codec.rawValue, encoder: settings.codec.encoderName, preset: settings.preset, crf: settings.crf,
            keyframeInterval: settings.keyframeInterval)
    }
}
