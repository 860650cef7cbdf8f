import CFFmpeg

/// Why a live source's input ended and what follows, said the same way by every reader
/// (``VideoFileDecoder`` re-encoding, ``EncodedVideoReader`` copying).
struct LiveSourceEnd {
    /// Why it ended, in words: the watchdog gave up after its I/O timeout, the sender ended
    /// the stream, or the connection failed.
    let why: String
    /// Whether the end is an outage (a reconnection may bring the stream back) rather than
    /// the stream's own end: a network source that failed, a connection-oriented one that
    /// closed, or an HTTP stream without a length (a live playlist). The end of an HTTP
    /// stream that states its length (a finished HLS playlist, a file) is its own end.
    let isOutage: Bool
    /// What follows: a reconnection for up to `--reconnect-for`, or the recording's end.
    let next: String

    /// - Parameters:
    ///   - read: what `av_read_frame` returned (`AVERROR_EXIT` from the watchdog, `AVERROR_EOF`, or an error).
    ///   - path: the source's address.
    ///   - input: its format context (its `duration`, `AV_NOPTS_VALUE` or ≤ 0 when unknown).
    ///   - silence: what did not arrive ("picture", "packet") for the watchdog's timeout.
    ///   - packets: packets read so far (no reconnection before the first).
    init(
        read: Int32, path: String, input: UnsafeMutablePointer<AVFormatContext>, watchdog: InputWatchdog, silence: String, packets: Int64,
        reconnectFor: Duration
    ) {
        why =
            read == InputPipe.averrorExit
            ? "no \(silence) for \(watchdog.seconds) s (the sender stopped or the connection dropped)"
            : read == segrec_averror_eof()
                ? "the sender ended the stream (closed the connection)" : "the connection closed or failed (\(FFmpegError.errorString(read)))"
        let scheme = VideoSourceOptions.networkScheme(of: path)
        let duration = input.pointee.duration
        let endless = duration == segrec_av_nopts_value() || duration <= 0
        isOutage = scheme != nil && (read != segrec_averror_eof() || scheme.map(VideoSourceOptions.connectionSchemes.contains) ?? false || endless)
        next =
            isOutage && reconnectFor > .zero && packets > 0
            ? "reconnecting for up to \(InputWatchdog.seconds(reconnectFor)) s (--reconnect-for)" : "the recording ends there"
    }
}
