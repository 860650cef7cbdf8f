// VideoFileDecoder's opening: the input (file, pipe or standard input), its probe, the video stream and the audio stream it decodes.
import CFFmpeg
import Foundation
import SegRecTime

extension VideoFileDecoder {
    /// Opens `path` with libavformat (through an `InputPipe` for standard input and named
    /// pipes), mapping FFmpeg's failures to ``MediaInputError``.
    /// A network URL gets an ``InputWatchdog`` (`watchdog`): its interrupt callback gives
    /// up once the source sent nothing for ``VideoSourceOptions/ioTimeout``.
    static func openInput(
        path: String, options: VideoSourceOptions, stopRequest: RecordingStopRequest?, watchdog: InputWatchdog?,
        adopting handedOver: RawByteInput.HandOver? = nil
    ) throws(MediaInputError) -> InputFormatContext {
        let (url, fileSystemPath, isPipe, format, demuxerOptions) = try options.demuxer(for: path)
        let shouldStop: @Sendable () -> Bool = { [stopRequest, watchdog] in stopRequest?.isRequested == true || watchdog?.isExpired == true }
        do throws(FFmpegError) {
            var pipe: InputPipe?
            if let handedOver {
                pipe = try InputPipe(adopting: handedOver.fd, path: path, prefix: handedOver.bytes, stoppingWhen: shouldStop)
            } else if isPipe {
                if let fileSystemPath {
                    pipe = try InputPipe(opening: fileSystemPath, stoppingWhen: shouldStop)
                } else {
                    pipe = try InputPipe(standardInputStoppingWhen: shouldStop)
                }
            }
            let asks = stopRequest != nil || watchdog != nil
            return try InputFormatContext(url: url, formatName: format, options: demuxerOptions, pipe: pipe, shouldStop: asks ? shouldStop : nil)
        } catch {
            if let watchdog, stopRequest?.isRequested != true {
                if error.code == InputPipe.averrorExit {
                    throw .unavailable(path: path, detail: "no data within \(Self.firstWait(watchdog)) (is the sender running?)")
                }
                if error.code != segrec_averror_invaliddata() { throw .unavailable(path: path, detail: "libavformat cannot open it: \(error.message)") }
            }
            if error.code == InputPipe.averrorExit { throw .interrupted(path: path) }
            if error.isNotFound { throw .inputNotFound(path: path) }
            let hint =
                path == "-" && options.videoSize == nil
                ? " (standard input is read as YUV4MPEG2, or as raw video when its size is given; another container needs a file or a named pipe)" : ""
            throw .badInput(path: path, field: "container", detail: "libavformat cannot open it: \(error.message)\(hint)")
        }
    }

    /// Reads the input's streams (`avformat_find_stream_info`): how the demuxer's log lines
    /// start, and what it logged as an error while probing.
    static func probe(_ input: InputFormatContext, path: String, watchdog: InputWatchdog?) throws(MediaInputError) -> (
        demuxerLogPrefix: String, probeError: String?
    ) {
        let context = input.pointer
        let (found, probeLogged) = FFmpegLog.errorLines { avformat_find_stream_info(context, nil) }
        let demuxer = "[" + String(cString: context.pointee.iformat.pointee.name) + " @ "
        let probeError = probeLogged.last { $0.hasPrefix(demuxer) }.map(FFmpegError.sentence)
        if found == InputPipe.averrorExit, let watchdog, watchdog.isExpired {
            throw .unavailable(path: path, detail: "no picture within \(Self.firstWait(watchdog)) of connecting (is the sender sending?)")
        }
        if found == InputPipe.averrorExit { throw .interrupted(path: path) }
        if found < 0 { throw .badInput(path: path, field: "container", detail: "libavformat cannot read its streams: \(FFmpegError.errorString(found))") }
        return (demuxer, probeError)
    }

    /// How long a live source was waited for before its first picture, in words: the
    /// timeout plus FFmpeg's allowance for reading the stream's first seconds.
    static func firstWait(_ watchdog: InputWatchdog) -> String {
        guard watchdog.initialAllowance != nil else { return "\(watchdog.seconds) s" }
        return
            "\(watchdog.initialSeconds) s (--io-timeout \(watchdog.seconds) s plus \(InputWatchdog.seconds(VideoSourceOptions.probeAllowance)) s for reading the stream's first seconds)"
    }

    static func isVideo(_ s: UnsafeMutablePointer<AVStream>) -> Bool { s.pointee.codecpar?.pointee.codec_type == AVMEDIA_TYPE_VIDEO }

    static func isAttachedPicture(_ s: UnsafeMutablePointer<AVStream>) -> Bool { (s.pointee.disposition & AV_DISPOSITION_ATTACHED_PIC) != 0 }

    /// `stream #1 (audio, aac)`: how notes and errors name a stream.
    static func describe(_ s: UnsafeMutablePointer<AVStream>) -> String {
        let type = av_get_media_type_string(s.pointee.codecpar.pointee.codec_type).map { String(cString: $0) } ?? "unknown"
        let codec = String(cString: avcodec_get_name(s.pointee.codecpar.pointee.codec_id))
        return "stream #\(s.pointee.index) (\(isAttachedPicture(s) ? "attached picture" : type), \(codec))"
    }

    /// The first video stream that is not an attached picture.
    static func videoStream(in streams: [UnsafeMutablePointer<AVStream>], path: String) throws(MediaInputError) -> UnsafeMutablePointer<AVStream> {
        guard let video = streams.first(where: { isVideo($0) && !isAttachedPicture($0) }) else {
            if let cover = streams.first(where: isAttachedPicture) {
                throw .badInput(
                    path: path, field: "video stream", detail: "the input has no video stream: \(describe(cover)) is an attached picture (cover art), not video"
                )
            }
            throw .badInput(
                path: path, field: "video stream", detail: "the input has no video stream (\(streams.count) other stream\(streams.count == 1 ? "" : "s"))")
        }
        return video
    }

    /// `video`'s time base and frame rate: `avg_frame_rate`, else `r_frame_rate`, else
    /// `fallback` (the `--framerate` given).
    /// - Throws: ``MediaInputError/badInput(path:field:detail:)`` (`time base`) when the time
    ///   base is not positive.
    static func timing(of video: UnsafeMutablePointer<AVStream>, path: String, fallback: FrameRate?) throws(MediaInputError) -> (
        timeBase: (num: Int32, den: Int32), frameRate: FrameRate?
    ) {
        let timeBase = (num: video.pointee.time_base.num, den: video.pointee.time_base.den)
        guard timeBase.num > 0, timeBase.den > 0 else {
            throw .badInput(path: path, field: "time base", detail: "\(timeBase.num)/\(timeBase.den) is not positive")
        }
        return (timeBase, rate(video.pointee.avg_frame_rate) ?? rate(video.pointee.r_frame_rate) ?? fallback)
    }

    /// `r` as a frame rate, nil when it is not one (0/0, negative).
    static func rate(_ r: AVRational) -> FrameRate? { try? FrameRate(Int64(r.num), Int64(r.den)) }

    /// The decoder of the first audio stream when `decodesAudio` (nil when there is none or
    /// FFmpeg cannot decode it), every other stream discarded, and the notes saying so.
    static func openAudio(
        of streams: [UnsafeMutablePointer<AVStream>], besides video: UnsafeMutablePointer<AVStream>, decodesAudio: Bool, path: String,
        output: VideoSourceOptions.AudioOutputFormat? = nil
    ) -> (FootageAudioDecoder?, [String]) {
        var notes: [String] = []
        let firstAudio = decodesAudio ? streams.first { $0.pointee.codecpar?.pointee.codec_type == AVMEDIA_TYPE_AUDIO } : nil
        var audioDecoder: FootageAudioDecoder?
        for other in streams where other != video {
            if other == firstAudio {
                do {
                    let opened = try FootageAudioDecoder(stream: other, path: path, output: output)
                    audioDecoder = opened
                    notes.append("input \(describe(other)) recorded as each segment's audio track: \(opened.description)")
                    continue
                } catch {
                    other.pointee.discard = AVDISCARD_ALL
                    notes.append("input \(describe(other)) ignored: it cannot be decoded (\(error))")
                    continue
                }
            }
            other.pointee.discard = AVDISCARD_ALL
            let isAudio = other.pointee.codecpar?.pointee.codec_type == AVMEDIA_TYPE_AUDIO
            notes.append(
                "input \(describe(other)) ignored: "
                    + (isAttachedPicture(other)
                        ? "an attached picture is not video"
                        : isAudio && audioDecoder != nil ? "only the first audio stream is recorded" : "only the first video stream is recorded"))
        }
        return (audioDecoder, notes)
    }
}
