// LiveReconnectingDecoder: a live network source that is reopened (or listened for again) with backoff when its sender goes away.
import CFFmpeg
import Foundation
import SegRecTime

/// How a live source came back: the first picture of its new connection carries it
/// (``DecodedPicture/reconnection``).
package struct LiveReconnection: Sendable, Hashable {
    /// From the moment the source was found gone to its new connection's first picture.
    package let outage: Duration
    /// From the last picture of the connection before to the new one's first (what
    /// separates them on the session clock, at least one frame period).
    package let gap: Duration
    /// Connections tried, the one that succeeded included.
    package let attempts: Int
    /// Why the source was found gone (``VideoFileDecoder/liveEnd``).
    package let cause: String
}

/// A live network source (``VideoSourceOptions/networkScheme(of:)``) that outlives its
/// sender: when the connection ends after pictures flowed (the sender stopped, closed or
/// failed: ``VideoFileDecoder/liveEndIsOutage``), it is opened again — a pulled URL
/// reconnected, a listening one listening for the next sender — after 0.5 s, then with the
/// wait doubling up to 5 s after each try that failed at once (a try that waited for data,
/// a UDP port bound or a listener, is made again at once), until a picture comes, a stop is requested, or
/// ``VideoSourceOptions/reconnectFor`` has passed since the source was found gone.
///
/// Each connection is a ``VideoFileDecoder`` of its own; this one hands out their pictures
/// as one stream: indexes go on, timestamps are given in the first connection's time base
/// (the new connection's own timeline: the consumer places it, see
/// ``DecodedPicture/reconnection``), damage counts add up, and the new connection's sound
/// is converted to the first one's rate and channels and continues its decoder
/// (``FootageAudioDecoder/continuing(_:)``). The stream's facts (time base, rate, size)
/// are the first connection's. Not thread-safe: one consumer.
package final class LiveReconnectingDecoder: FootageDecoder {
    /// The connection pictures come from; nil while reconnecting (the one before is closed
    /// first, so that a listener's port is free again).
    private var current: VideoFileDecoder?
    private let options: VideoSourceOptions
    private let stopRequest: RecordingStopRequest?
    private let open: (VideoSourceOptions) throws(MediaInputError) -> VideoFileDecoder
    private var indexBase: Int64 = 0
    private var corruptBase = 0
    private var droppedBase = 0
    private var stopped = false
    private var lastPictureAt: ContinuousClock.Instant?
    /// A reconnection whose first picture has not come out yet: when the source was found
    /// gone, the connections tried, why it was gone.
    private var pendingReconnection: (gone: ContinuousClock.Instant, attempts: Int, cause: String)?
    /// The sound decoder of the connection before, continued by the next one's.
    private var previousAudio: FootageAudioDecoder?

    package let path: String
    package let pixelBufferPool: PixelBufferPool
    package let timeBase: (num: Int32, den: Int32)
    package let frameRate: FrameRate?
    package let nominalFrameRate: FrameRate?
    package let rotationDegrees: Int?
    package let streamDimensions: VideoDimensions
    package var presentationEnd: Int64? { nil }
    package let fieldOrder: VideoFieldOrder
    package let streamPictureDescription: PictureDescription
    package let allowsTimestampDiscontinuities: Bool
    package let notes: [String]
    package let audioStreamCount: Int
    /// The first connection's sound output format (nil: it had no sound decoded).
    private let soundFormat: VideoSourceOptions.AudioOutputFormat?

    /// The first connection, already open, and how to open the next (`open`, given the
    /// options with the reconnection's deadline and the first connection's sound format).
    package init(first: VideoFileDecoder, stopRequest: RecordingStopRequest?, open: @escaping (VideoSourceOptions) throws(MediaInputError) -> VideoFileDecoder)
    {
        current = first
        options = first.options
        self.stopRequest = stopRequest
        self.open = open
        path = first.path
        pixelBufferPool = first.pixelBufferPool
        timeBase = first.timeBase
        frameRate = first.frameRate
        nominalFrameRate = first.nominalFrameRate
        rotationDegrees = first.rotationDegrees
        streamDimensions = first.streamDimensions
        fieldOrder = first.fieldOrder
        streamPictureDescription = first.streamPictureDescription
        allowsTimestampDiscontinuities = first.allowsTimestampDiscontinuities
        notes = first.notes
        audioStreamCount = first.audioStreamCount
        soundFormat = first.audio.map { .init(sampleRate: $0.sampleRate, channelCount: $0.channelCount) }
    }

    package var warningHandler: ((String) -> Void)? { didSet { current?.warningHandler = warningHandler } }
    package var noteHandler: ((String) -> Void)? { didSet { current?.noteHandler = noteHandler } }
    package var corruptPackets: Int { corruptBase + (current?.corruptPackets ?? 0) }
    package var droppedPictures: Int { droppedBase + (current?.droppedPictures ?? 0) }
    package var wasInterrupted: Bool { current?.wasInterrupted == true || stopped }
    /// The current connection's sound decoder (it continues the ones before), when the
    /// first connection had sound.
    package var audio: FootageAudioDecoder? { soundFormat == nil ? nil : current?.audio ?? previousAudio }

    package func stopReading() {
        stopped = true
        current?.stopReading()
    }

    package func nextPicture() throws(MediaInputError) -> DecodedPicture? {
        while current != nil {
            if let picture = try takePicture() { return picture }
            // No reference to the connection that ended is held here: reconnecting closes it.
            guard !stopped, stopRequest?.isRequested != true, current?.liveEndIsOutage == true, current?.picturesDecoded ?? 0 > 0, options.reconnectFor > .zero
            else { return nil }
            try reconnect()
        }
        return nil
    }

    /// The current connection's next picture, numbered and timed as this stream's; nil at
    /// its end.
    private func takePicture() throws(MediaInputError) -> DecodedPicture? {
        guard let connection = current, let picture = try connection.nextPicture() else { return nil }
        let now = ContinuousClock.now
        var out = DecodedPicture(
            pixels: picture.pixels, pts: picture.pts.map { rebased($0, from: connection.timeBase) }, decodedDimensions: picture.decodedDimensions,
            index: indexBase + picture.index, pictureDescription: picture.pictureDescription, startsNewSequence: picture.startsNewSequence)
        if let pending = pendingReconnection {
            out.reconnection = LiveReconnection(
                outage: now - pending.gone, gap: now - (lastPictureAt ?? pending.gone), attempts: pending.attempts, cause: pending.cause)
            pendingReconnection = nil
        }
        lastPictureAt = now
        return out
    }

    /// `pts` of time base `from` in the first connection's.
    private func rebased(_ pts: Int64, from: (num: Int32, den: Int32)) -> Int64 {
        guard from != timeBase else { return pts }
        return av_rescale_q(pts, AVRational(num: from.num, den: from.den), AVRational(num: timeBase.num, den: timeBase.den))
    }

    /// Closes the connection that ended and opens the source again until it comes back,
    /// the window closes or a stop is requested (``current`` then stays nil; a warning says
    /// when the window closed).
    private func reconnect() throws(MediaInputError) {
        guard let ended = current.take() else { return }
        let gone = ContinuousClock.now
        let cause = ended.liveEnd ?? "it ended"
        indexBase += ended.picturesDecoded
        corruptBase += ended.corruptPackets
        droppedBase += ended.droppedPictures
        previousAudio = ended.audio ?? previousAudio
        _ = consume ended  // closes it
        var next = options
        next.audioOutput = soundFormat
        let reopened = LiveReopening(path: path, options: next, stopRequest: stopRequest).reopen(
            gone: gone, isStopped: { self.stopped }, warningHandler: warningHandler, open: open)
        guard let reopened else { return }
        adopt(reopened.connection)
        pendingReconnection = (gone, reopened.attempts, cause)
    }

    /// The new connection `opened` becomes the current one.
    private func adopt(_ opened: VideoFileDecoder) {
        opened.warningHandler = warningHandler
        opened.noteHandler = noteHandler
        if let sound = opened.audio, let before = previousAudio {
            sound.warningHandler = before.warningHandler
            sound.continuing(before)
        }
        for note in opened.notes { noteHandler?("reconnected: \(note)") }
        current = opened
    }
}

/// How a live source is opened again after an outage (``LiveReconnectingDecoder``, and the
/// copy's `CopySource`): after 0.5 s, then with the wait doubling up to 5 s after each try
/// that failed at once (a try that waited for data, a UDP port bound or a listener, is made
/// again at once, so a sender coming back finds it bound), until a connection opens, a stop
/// is requested, or ``VideoSourceOptions/reconnectFor`` has passed since the source was
/// found gone; each try must have its first packet by then (``VideoSourceOptions/firstPacketBy``).
package struct LiveReopening {
    /// The source, for the warning.
    package let path: String
    /// The options each try opens with (its ``VideoSourceOptions/firstPacketBy`` set here).
    package let options: VideoSourceOptions
    package let stopRequest: RecordingStopRequest?

    package init(path: String, options: VideoSourceOptions, stopRequest: RecordingStopRequest?) {
        self.path = path
        self.options = options
        self.stopRequest = stopRequest
    }

    /// Opens the source with `open` until it comes back (the connection and the tries
    /// made); nil when the window closed (with a warning to `warningHandler`) or a stop
    /// was requested (`isStopped`, or the stop request) first.
    package func reopen<Connection>(
        gone: ContinuousClock.Instant, isStopped: () -> Bool, warningHandler: ((String) -> Void)?,
        open: (VideoSourceOptions) throws(MediaInputError) -> Connection
    ) -> (connection: Connection, attempts: Int)? {
        let deadline = gone + options.reconnectFor
        var backoff: Duration = .milliseconds(500)
        var wait = backoff
        var attempts = 0
        var lastFailure: MediaInputError?
        while pause(wait, until: deadline, isStopped: isStopped) {
            attempts += 1
            var next = options
            next.firstPacketBy = deadline
            let began = ContinuousClock.now
            do throws(MediaInputError) { return (try open(next), attempts) } catch {
                if case .interrupted = error { return nil }
                // A try the window's end cut short says nothing about the source.
                lastFailure = ContinuousClock.now < deadline ? error : lastFailure
            }
            // A try that failed at once (refused, not found) waits, longer each time; one
            // that waited for data (a UDP port bound, a listener) tries again at once, so a
            // sender coming back finds it bound.
            backoff = min(backoff * 2, .seconds(5))
            wait = ContinuousClock.now - began < .milliseconds(500) ? backoff : .milliseconds(20)
        }
        if stopRequest?.isRequested != true && !isStopped() {
            warningHandler?(
                "\(path): the live source did not come back within \(InputWatchdog.seconds(options.reconnectFor)) s (--reconnect-for; \(attempts) attempt\(attempts == 1 ? "" : "s")"
                    + (lastFailure.map { "; the last: \($0)" } ?? "") + "): the recording ends there")
        }
        return nil
    }

    /// Sleeps `duration` (in steps that notice a stop), unless `deadline` comes first;
    /// false when a stop was requested or the deadline passed.
    private func pause(_ duration: Duration, until deadline: ContinuousClock.Instant, isStopped: () -> Bool) -> Bool {
        let end = min(ContinuousClock.now + duration, deadline)
        while ContinuousClock.now < end {
            if isStopped() || stopRequest?.isRequested == true { return false }
            usleep(20_000)
        }
        return !(isStopped() || stopRequest?.isRequested == true) && ContinuousClock.now < deadline
    }
}
