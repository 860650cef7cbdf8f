// SegmentWriter's audio track: PCM into the AAC encoder, its packets written with the track's exact length.
import CFFmpeg
import Foundation
import SegRecTime

extension SegmentWriter {
    /// Encodes `pcm` into the audio track, right after the samples given before: the
    /// track's sample `k` is the `k`-th sample frame given, at file time `k / sampleRate`.
    /// - Throws: ``SegmentWriterError/notWritable(path:underlying:)`` without an audio track,
    ///   ``FFmpegError`` from the encoder or muxer, ``SegmentWriterError/io(path:operation:errno:)``.
    ///   After those the writer has failed.
    package func appendAudio(_ pcm: AudioPCMBuffer) throws {
        try ensureOpen()
        guard let audioEncoder, let audioSettings, pcm.channelCount == audioSettings.channelCount else {
            throw SegmentWriterError.notWritable(path: url.path, underlying: "no audio track of \(pcm.channelCount) channels")
        }
        guard pcm.frameCount > 0 else { return }
        do {
            audioSampleCount += Int64(pcm.frameCount)
            for packet in try audioEncoder.encode(pcm) { try holdAudio(packet) }
        } catch {
            fail(error)
            throw error
        }
    }

    /// Encodes `frameCount` sample frames of silence, after the samples given before, in
    /// pieces of at most ``silencePiece`` frames (`AudioEncoder.encodeSilence`: steady
    /// silence is the encoder's packet repeated), so neither the memory nor the time it takes
    /// grows like the samples would. - Throws: as ``appendAudio(_:)``.
    package func appendSilence(frameCount: Int64) throws {
        try ensureOpen()
        guard let audioEncoder else { throw SegmentWriterError.notWritable(path: url.path, underlying: "no audio track") }
        var left = frameCount
        // Fragments cut inside the silence hold no picture: they are made durable with the
        // next one that does (one fdatasync covers the file), not one by one (an hour of
        // silence is 3 600 fragments of 1 s).
        let syncs = format.file?.syncsOnFlush ?? false
        format.file?.syncsOnFlush = false
        defer { format.file?.syncsOnFlush = syncs }
        do {
            while left > 0 {
                let piece = min(left, Self.silencePiece)
                audioSampleCount += piece
                for packet in try audioEncoder.encodeSilence(piece) { try holdAudio(packet) }
                left -= piece
            }
        } catch {
            fail(error)
            throw error
        }
    }

    /// The most sample frames of silence handed to the encoder at once (21.8 s at 48 kHz).
    package static let silencePiece: Int64 = 1 << 20

    /// Writes the held audio packet (its duration as the encoder gave it) and holds `packet`.
    func holdAudio(_ packet: Packet) throws {
        if let held = heldAudioPacket { try writeAudio(held, duration: nil) }
        heldAudioPacket = packet
    }

    /// Flushes the audio encoder and writes the last packet so that the track ends at
    /// exactly ``audioSampleCount`` samples (the edit list then hides the priming and the
    /// padding: the presentation lasts exactly the samples given).
    func finishAudio() throws {
        guard let audioEncoder else { return }
        for packet in try audioEncoder.flush() { try holdAudio(packet) }
        if let held = heldAudioPacket {
            heldAudioPacket = nil
            try writeAudio(held, duration: max(1, audioSampleCount - held.pointer.pointee.pts))
        }
    }

    func writeAudio(_ packet: Packet, duration: Int64?) throws {
        guard let audioStream, let audioEncoder else { return }
        let p = packet.pointer
        defer { av_packet_unref(p) }
        if let duration { p.pointee.duration = duration }
        p.pointee.stream_index = audioStream.pointee.index
        av_packet_rescale_ts(p, audioEncoder.context.pointer.pointee.time_base, audioStream.pointee.time_base)
        let written = av_write_frame(format.pointer, p)
        if let failure = format.file?.flush() { throw failure }
        // The message is built only on failure (not for each of an hour's 170 000 packets).
        if written < 0 { try check(written, "av_write_frame", context: "\(partialURL.path) audio") }
        audioPacketsWritten += 1
    }
}
