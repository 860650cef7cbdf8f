import Foundation
import Testing

@testable import SegRecKit
@testable import SegRecMedia
@testable import SegRecTime

/// A live source's URL checked before anything connects (Docs/footage.md, "Live sources"),
/// and a reconnected source's sound placed on its new timeline.
@Suite(.tags(.footage)) struct LiveSourceCheckTests {
    /// The field and detail of the error opening `path` gives, or nil when it opens as a URL.
    static func failure(_ path: String, listen: Bool = false) -> (field: String, detail: String)? {
        var options = VideoSourceOptions()
        options.listen = listen
        do {
            _ = try options.demuxer(for: path)
            return nil
        } catch {
            guard case .badInput(_, let field, let detail) = error else { return ("other", "\(error)") }
            return (field, detail)
        }
    }

    @Test func schemesAreCaseInsensitiveAndHandedOnInLowerCase() throws {
        #expect(VideoSourceOptions.networkScheme(of: "UDP://127.0.0.1:5000") == "udp")
        #expect(try VideoSourceOptions().demuxer(for: "UDP://127.0.0.1:5000").url == "udp://127.0.0.1:5000")
        #expect(try VideoSourceOptions().demuxer(for: "Rtmp://Host:1935/Live/Cam").url == "rtmp://Host:1935/Live/Cam")
        #expect(VideoSourceOptions.urlScheme(of: "/tmp/a://b") == nil)
    }

    @Test func anUnknownProtocolNamesTheAllowedOnes() {
        let failure = Self.failure("foo://x")
        #expect(failure?.field == "protocol")
        #expect(failure?.detail.contains("'foo://' is not a protocol segrec reads") == true)
        #expect(failure?.detail.contains("srt://, rtmp://") == true)
    }

    @Test(arguments: [
        ("udp://127.0.0.1", "port", "needs a port"), ("udp://127.0.0.1:99999", "port", "'99999' is not a port"),
        ("srt://127.0.0.1:0", "port", "'0' is not a port"), ("tcp://127.0.0.1:x1", "port", "'x1' is not a port"),
        ("rtmp://:1935/live", "host", "no host to connect to")
    ]) func portsAndHostsAreCheckedUpFront(path: String, field: String, detail: String) {
        let failure = Self.failure(path)
        #expect(failure?.field == field && failure?.detail.contains(detail) == true, "\(String(describing: failure))")
    }

    @Test func goodAddressesPass() {
        for path in ["udp://127.0.0.1:5000?pkt_size=1316", "udp://@:5000", "rtsp://[::1]:8554/live", "http://127.0.0.1/live.m3u8", "srt://user@host:9000"] {
            #expect(Self.failure(path) == nil, "\(path)")
        }
        #expect(Self.failure("rtmp://:1935/live", listen: true) == nil)
    }

    @Test func aNewConnectionsSoundStartsAtItsOffsetNotWhereTheSoundLeftOff() throws {
        var timing = try FootageAudioTiming(timeBase: (1, 90_000), sampleRate: 48_000, allowsDiscontinuities: true)
        let pcm = AudioPCMBuffer(channelCount: 1, samples: [Float](repeating: 0.5, count: 960))
        let first = timing.buffer(for: DecodedAudio(pts: 90_000, samplesBeforePTS: 0, pcm: pcm)).0
        #expect(first.sessionTime == MediaTime(value: 1_000_000_000, timescale: 1_000_000_000))
        // The new connection's clock starts again at 0.5 s; its pictures were placed 20 s on.
        timing.startNewConnection(offsetNanoseconds: 20_000_000_000)
        // The connection before's last samples still come first, where the sound left off.
        let leftover = timing.buffer(for: DecodedAudio(pts: nil, samplesBeforePTS: 0, pcm: pcm))
        #expect(leftover.0.sessionTime == first.nextSessionTime && leftover.warning == nil)
        var restarted = DecodedAudio(pts: 45_000, samplesBeforePTS: 0, pcm: pcm)
        restarted.startsNewConnection = true
        let (placed, warning) = timing.buffer(for: restarted)
        // Not a discontinuity collapsed onto the sound before: 20.5 s, a gap the recorder fills.
        #expect(warning == nil)
        #expect(placed.sessionTime == MediaTime(value: 20_500_000_000, timescale: 1_000_000_000))
    }
}
