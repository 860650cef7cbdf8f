// VideoFileDecoder's reading: packets demuxed and fed to the decoder, the end of the input and its truncation checks, the audio packets handed on.
import CFFmpeg
import Foundation
import SegRecTime

extension VideoFileDecoder {
    /// Reads the next packet of the stream (unless one is still waiting) and sends it to
    /// the decoder; at the end, on a stop or when the input cannot be read, sends the flush
    /// packet.
    func feedPacket() {
        if !packetPending { guard readPacket() else { return } }
        let sent = avcodec_send_packet(decoder.pointer, packet.pointer)
        if sent == segrec_averror_eagain() {
            packetPending = true  // the decoder wants its output read first
            return
        }
        packetPending = false
        av_packet_unref(packet.pointer)
        if sent == segrec_averror_enomem() {
            fail(field: "decoding", detail: "libavcodec (\(codecName)) failed: \(FFmpegError.errorString(sent))")
            flush()
        } else if sent < 0 {
            reject(reason: FFmpegError.errorString(sent), flaggedCorrupt: pendingPacketCorrupt)
        }
    }

    /// `av_read_frame` until a packet of the video stream; false (after flushing) at the
    /// end, on a stop, or when reading failed for good.
    func readPacket() -> Bool {
        // What the demuxer logged as an error or failed with while reading up to the next
        // video packet: it skipped unreadable data there (see ``InputDamage``).
        var skipped: String?
        let positionBefore = probeError == nil ? nil : input.pointer.pointee.pb.map { avio_tell($0) }
        while true {
            if readingStopped || stopRequest?.isRequested == true {
                wasInterrupted = true
                stoppedBeforeEnd = true
                flush()
                return false
            }
            let (read, logged) = FFmpegLog.errorLines { av_read_frame(input.pointer, packet.pointer) }
            // The demuxer's own lines, not a parser's or decoder's (those are decoder damage).
            if let line = logged.last(where: { $0.hasPrefix(demuxerLogPrefix) }) { skipped = FFmpegError.sentence(line) }
            if read == segrec_averror_eagain() { continue }
            if let watchdog, read < 0, read != segrec_averror_invaliddata(), stopRequest?.isRequested != true {
                liveSourceEnded(watchdog: watchdog, read: read)
                return false
            }
            if read == InputPipe.averrorExit || (read < 0 && stopRequest?.isRequested == true) {
                wasInterrupted = true
                flush()
                return false
            }
            if read == segrec_averror_eof() {
                endOfInput(skipped: skipped)
                return false
            }
            if read < 0 {
                consecutiveReadErrors += 1
                let atEnd = input.pointer.pointee.pb.map { avio_feof($0) != 0 } ?? false
                if atEnd || consecutiveReadErrors >= Self.maximumConsecutiveReadErrors {
                    fail(field: "data", detail: "the input cannot be read past packet \(packetsDemuxed): \(FFmpegError.errorString(read))")
                    flush()
                    return false
                }
                skipped = skipped ?? "av_read_frame: \(FFmpegError.errorString(read))"
                continue
            }
            consecutiveReadErrors = 0
            guard packet.pointer.pointee.stream_index == stream.pointee.index else {
                if let audio, packet.pointer.pointee.stream_index == audio.streamIndex { decodeAudio(packet.pointer, with: audio) }
                av_packet_unref(packet.pointer)
                continue
            }
            let corrupt = (packet.pointer.pointee.flags & AV_PKT_FLAG_CORRUPT) != 0
            if corrupt && isPictureStream {
                // A short last picture of raw video / YUV4MPEG2: truncation.
                av_packet_unref(packet.pointer)
                checkWholePictures()
                flush()
                return false
            }
            watchdog?.touch()
            takeVideoPacket(corrupt: corrupt, skipped: skipped, positionBefore: positionBefore)
            return true
        }
    }

    /// A live source stopped: it sent nothing for its I/O timeout (the watchdog gave up),
    /// closed the connection, or failed. Reading ends there like at the end of a file, with
    /// a warning saying why and what follows (a reconnection, or the recording's end).
    func liveSourceEnded(watchdog: InputWatchdog, read: Int32) {
        let end = LiveSourceEnd(
            read: read, path: path, input: input.pointer, watchdog: watchdog, silence: "picture", packets: packetsDemuxed, reconnectFor: options.reconnectFor)
        liveEnd = end.why
        liveEndIsOutage = end.isOutage
        warningHandler?("\(path): live source ended after \(packetsDemuxed) packets: \(end.why); \(end.next)")
        flush()
    }

    /// At the end of the input: a picture stream must end on a whole picture, a container
    /// must deliver the frames it declares, and a demuxer that skipped data last gave up on
    /// damage; then the decoder is flushed.
    func endOfInput(skipped: String?) {
        if isPictureStream {
            checkWholePictures()
        } else if let declared = declaredFrameCount, packetsDemuxed < declared {
            checkDeclaredFrames(declared)
        } else if let skipped {
            // The demuxer gave up on damage (Matroska that cannot resync, "File
            // ended prematurely"): the rest of the input cannot be read.
            fail(
                field: "data",
                detail: "the input cannot be read past packet \(packetsDemuxed): libavformat ended on \"\(skipped)\" (cut short or damaged beyond resync)")
        }
        flush()
    }

    /// Counts a video packet just read and notes what it says (its end, a new sequence header,
    /// its time) and the damage met on the way to it.
    func takeVideoPacket(corrupt: Bool, skipped: String?, positionBefore: Int64?) {
        let p = packet.pointer.pointee
        if p.pos >= 0 { lastPictureEnd = p.pos + Int64(p.size) }
        // A new sequence header in band (FLV/RTMP: a second push, a restarted encoder).
        if packetsDemuxed > 0, av_packet_get_side_data(packet.pointer, AV_PKT_DATA_NEW_EXTRADATA, nil) != nil {
            newSequencePTS = p.pts != segrec_av_nopts_value() ? p.pts : p.dts
        }
        let time = p.pts != segrec_av_nopts_value() ? p.pts : p.dts
        lastPacketSeconds = time == segrec_av_nopts_value() ? nil : inputSeconds(time)
        lastVideoDTS = p.dts != segrec_av_nopts_value() ? p.dts : nil
        // Decode times never go back within a stream (presentation times do, reordered).
        let decodeTime = p.dts != segrec_av_nopts_value() ? p.dts : time
        resolveCorruptionBefore(time: decodeTime)
        packetsDemuxed += 1
        pendingPacketCorrupt = corrupt
        if corrupt && allowsTimestampDiscontinuities && decodeTime != segrec_av_nopts_value() {
            // Judged at the next packet: a restart's timestamps, or damage.
            corruptBeforeRestart.append((packetsDemuxed - 1, lastPacketSeconds, decodeTime))
        } else if corrupt {
            report(damage.packetFlaggedCorrupt(index: packetsDemuxed - 1, seconds: lastPacketSeconds))
        }
        if let skipped { report(damage.demuxerSkippedData(beforePacket: packetsDemuxed - 1, seconds: lastPacketSeconds, logged: skipped)) }
        var probed = false
        if let probeError {
            // Read ahead by probing (the input's position did not move), or the first
            // packet past them, which ends the window.
            if let before = positionBefore, input.pointer.pointee.pb.map({ avio_tell($0) }) == before {
                probed = true
                report(damage.packetReadWhileProbing(index: packetsDemuxed - 1, seconds: lastPacketSeconds, logged: probeError))
            } else {
                self.probeError = nil
            }
        }
        if !corrupt && skipped == nil && !probed { report(damage.packetClean(index: packetsDemuxed - 1)) }
    }

    /// Packets the demuxer flagged corrupt in a container whose timestamps may jump
    /// (MPEG-TS), judged once the next ``restartWindow`` video packets are here (or the
    /// end: `time` nil): when the stream's decode time jumps within them as at a restart
    /// (back by more than 0.1 s, or ahead by more than 10 s: a restarted sender or encoder,
    /// a new stream), the flags are the demuxer's reaction to the new stream's continuity
    /// counters, a note, not damage; otherwise each counts as damage.
    func resolveCorruptionBefore(time: Int64?) {
        guard let latest = corruptBeforeRestart.last else { return }
        let second = Int64(timeBase.den) / Int64(max(1, timeBase.num))
        if let time, time != segrec_av_nopts_value(), time < latest.time - second / 10 || time > latest.time + 10 * second {
            let first = corruptBeforeRestart[0]
            remark(
                "input stream restarted at packet \(packetsDemuxed) (its time goes from \(String(format: "%.3f", inputSeconds(latest.time))) s to \(String(format: "%.3f", inputSeconds(time))) s: a new stream, e.g. a restarted sender); the demuxer flagged \(corruptBeforeRestart.count == 1 ? "packet \(first.index)" : "packets \(first.index)…\(latest.index)") at the restart: not counted as damage"
            )
            corruptBeforeRestart = []
            return
        }
        while let oldest = corruptBeforeRestart.first, time == nil || packetsDemuxed - oldest.index >= Self.restartWindow {
            corruptBeforeRestart.removeFirst()
            report(damage.packetFlaggedCorrupt(index: oldest.index, seconds: oldest.seconds))
        }
    }

    /// Video packets after a packet flagged corrupt within which a restart explains the flag.
    static let restartWindow: Int64 = 4

    /// Bytes after the last packet, after which a file that declares more frames than it
    /// delivered was not cut short: its index or trailer follows (an AVI's `idx1`).
    static let trailerSlack: Int64 = 64

    /// At the end of a container that declares `declared` frames (`AVStream.nb_frames`)
    /// and delivered fewer: a file cut short (its last packet reaches the end of the file)
    /// is an error naming how many frames it kept; one whose last packet is followed by
    /// more than ``trailerSlack`` bytes lost the rest in the middle (AVI's demuxer skips
    /// damaged chunks without a word and renumbers the rest), and they are counted as lost
    /// pictures like any damage, less those a gap in the timestamps already counted.
    func checkDeclaredFrames(_ declared: Int64) {
        let size = input.pointer.pointee.pb.map { avio_size($0) } ?? -1
        if let last = lastPictureEnd, size > 0, size - last > Self.trailerSlack {
            let missing = Int(declared - packetsDemuxed) - damage.picturesMissingFromTimestamps
            report(
                damage.declaredPicturesMissing(
                    missing, declared: Int(declared), delivered: Int(packetsDemuxed), atPacket: packetsDemuxed, bytesAfterLastPacket: size - last))
        } else {
            fail(field: "data", detail: "truncated: the file ends after \(packetsDemuxed) of its \(declared) frames")
        }
    }

    /// At the end of raw video or YUV4MPEG2: bytes read after the last whole picture are
    /// a truncated picture (an error naming how many bytes were left over).
    func checkWholePictures() {
        guard let pb = input.pointer.pointee.pb else { return }
        let end = avio_tell(pb)
        guard let last = lastPictureEnd else {
            if end > 0, packetsDemuxed == 0 { fail(field: "data", detail: "truncated: the input ends inside its first frame (no whole frame)") }
            return
        }
        let leftover = end - last
        guard leftover > 0 else { return }
        fail(
            field: "data",
            detail:
                "truncated: \(leftover) byte\(leftover == 1 ? "" : "s") left over after the last whole frame (frame \(packetsDemuxed - 1)); \(packetsDemuxed) whole frame\(packetsDemuxed == 1 ? "" : "s") kept"
        )
    }

    /// Hands an audio packet to ``audio`` with its input time (seconds from the video
    /// stream's start), for its warnings.
    func decodeAudio(_ packet: UnsafeMutablePointer<AVPacket>, with audio: FootageAudioDecoder) {
        let nopts = segrec_av_nopts_value()
        let time = packet.pointee.pts != nopts ? packet.pointee.pts : packet.pointee.dts
        var seconds: Double?
        if time != nopts, audio.timeBase.den > 0 {
            let start = stream.pointee.start_time == nopts ? 0 : Double(stream.pointee.start_time) * Double(timeBase.num) / Double(timeBase.den)
            seconds = Double(time) * Double(audio.timeBase.num) / Double(audio.timeBase.den) - start
        }
        audio.decode(packet, seconds: seconds)
    }

    func flush() {
        resolveCorruptionBefore(time: nil)
        audio?.finish()
        draining = true
        packetPending = false
        av_packet_unref(packet.pointer)
        if avcodec_send_packet(decoder.pointer, nil) < 0 { finished = true }
    }

    func fail(field: String, detail: String) { if pendingError == nil { pendingError = .badInput(path: path, field: field, detail: detail) } }
}
