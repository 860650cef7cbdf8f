// VideoFileDecoder's decoding: pictures received from the decoder, timed and counted against the damage met.
import CFFmpeg
import Foundation
import SegRecTime

extension VideoFileDecoder {
    /// One `avcodec_receive_frame`; nil when the decoder wants input, is done, or failed
    /// on one picture (counted as damage).
    func receivePicture() throws(MediaInputError) -> DecodedPicture? {
        let received = avcodec_receive_frame(decoder.pointer, frame.pointer)
        if received == segrec_averror_eagain() {
            if draining { finished = true }  // should not happen after a flush; be safe
            return nil
        }
        if received == segrec_averror_eof() {
            finished = true
            return nil
        }
        if received < 0 {
            if received == segrec_averror_enomem() {
                fail(field: "decoding", detail: "libavcodec (\(codecName)) failed: \(FFmpegError.errorString(received))")
                finished = true
            } else {
                reject(reason: FFmpegError.errorString(received), flaggedCorrupt: false)
            }
            return nil
        }
        defer { av_frame_unref(frame.pointer) }
        let f = frame.pointer.pointee
        if isAfterUnreadPictures(f) { return nil }
        if f.decode_error_flags != 0 || (f.flags & AV_FRAME_FLAG_CORRUPT) != 0 {
            report(damage.pictureConcealed(atPacket: max(0, packetsDemuxed - 1), seconds: lastPacketSeconds))
        }
        if f.interlaced_frame != 0 { interlacedPictures += 1 }
        rejectedSincePicture = 0
        let buffer = try converter!.convert(frame.pointer, index: picturesDecoded, path: path)
        // The frame's pts, else libavcodec's best-effort timestamp (streams with only dts).
        let nopts = segrec_av_nopts_value()
        var pts = f.pts != nopts ? f.pts : (f.best_effort_timestamp != nopts ? f.best_effort_timestamp : nil)
        // After damage a picture can come out late, behind pictures shown after it: like
        // ffmpeg, give it libavcodec's best-effort timestamp when that one advances.
        if let p = pts, let last = lastPTS, p <= last, damage.isRunOpen, f.best_effort_timestamp != nopts, f.best_effort_timestamp > last {
            pts = f.best_effort_timestamp
            damage.pictureRetimed()
        }
        // Inside a run of damage: a gap above the highest time seen counts pictures missing,
        // a picture below it came late and fills one of them.
        if let p = pts, let high = highestPTS, damage.isRunOpen {
            if p > high {
                damage.picturesMissing(missingPictures(from: high, to: p), afterSeconds: inputSeconds(high))
            } else if p < high {
                damage.pictureCameLate()
            }
        }
        if let pts {
            lastPTS = pts
            highestPTS = max(highestPTS ?? pts, pts)
        }
        var picture = DecodedPicture(
            pixels: buffer, pts: pts, decodedDimensions: VideoDimensions(width: Int(f.width), height: Int(f.height)), index: picturesDecoded)
        // The frame's pixel aspect ratio, else the stream's or the container's (as ffmpeg does).
        frame.pointer.pointee.sample_aspect_ratio = av_guess_sample_aspect_ratio(input.pointer, stream, frame.pointer)
        picture.pictureDescription = converter!.describe(frame.pointer, index: picturesDecoded)
        if let first = newSequencePTS, pts == first {
            picture.startsNewSequence = true
            newSequencePTS = nil
        }
        picturesDecoded += 1
        return picture
    }

    /// `ticks` of the stream's time base as seconds from the stream's start (input time).
    func inputSeconds(_ ticks: Int64) -> Double {
        let start = stream.pointee.start_time == segrec_av_nopts_value() ? 0 : stream.pointee.start_time
        return Double(ticks - start) * Double(timeBase.num) / Double(timeBase.den)
    }

    /// Pictures missing between two presented at `last` and `next` (time-base ticks) at the
    /// stream's nominal rate: a gap over 1.5 frame periods, rounded to whole periods, less
    /// the picture at `next`. Only asked inside a run of damage (a still period of a
    /// variable-rate stream is not a loss); at most 10 s of pictures, at a rate of at most
    /// 240 fps (``largestNominalFrameRate``), whatever the stream claims.
    func missingPictures(from last: Int64, to next: Int64) -> Int {
        guard var rate = nominalFrameRate ?? frameRate, rate.numerator > 0, timeBase.num > 0, next > last else { return 0 }
        // A rate no camera captures at (a damaged header, a 1/90000 time base taken for the
        // rate) never sets the count: at most 240 pictures a second are counted lost.
        let fastest = Self.largestNominalFrameRate
        if Int128(rate.numerator) * Int128(fastest.denominator) > Int128(fastest.numerator) * Int128(rate.denominator) { rate = fastest }
        // gap / period = (next − last) · num · rate.num / (den · rate.den)
        let gap = Int128(next - last) * Int128(timeBase.num) * Int128(rate.numerator)
        let period = Int128(timeBase.den) * Int128(rate.denominator)
        guard gap * 2 > period * 3 else { return 0 }
        let periods = (gap * 2 + period) / (period * 2)  // rounded half up
        let cap = Int128(10) * Int128(rate.numerator) / max(1, Int128(rate.denominator))
        return Int(min(periods - 1, max(cap, 1)))
    }

    /// A packet (or picture) the decoder refused: its picture is lost; too many in a row
    /// end decoding.
    func reject(reason: String, flaggedCorrupt: Bool) {
        report(damage.packetRejected(index: max(0, packetsDemuxed - 1), seconds: lastPacketSeconds, reason: reason, alreadyCounted: flaggedCorrupt))
        rejectedSincePicture += 1
        if rejectedSincePicture >= Self.maximumConsecutiveRejections {
            fail(
                field: "decoding",
                detail:
                    "libavcodec (\(codecName)) rejected \(rejectedSincePicture) packets in a row (\(reason)); the stream cannot be decoded past packet \(packetsDemuxed)"
            )
            flush()
        }
    }

    /// After a stop with input still to read, whether `frame`, drained from the decoder, may
    /// be shown after pictures whose packets were never read: a reference picture decoded
    /// ahead of the B-frames shown before it. Its pts is beyond the last packet's dts (every
    /// picture shown at or before that dts has a dts no later, so it was read); delivering
    /// it could leave a gap of lost frames before the recording's last frame, so the
    /// recording ends with the last picture before it instead. False when the packets had
    /// no dts, and after a stop that found the input idle (a pipe that had given all it
    /// had: every picture the decoder holds is whole).
    func isAfterUnreadPictures(_ frame: AVFrame) -> Bool {
        guard stoppedBeforeEnd, let limit = lastVideoDTS, frame.pts != segrec_av_nopts_value() else { return false }
        return frame.pts > limit
    }
}
