import CFFmpeg
import Foundation
import Testing

@testable import SegRecMedia
@testable import SegRecTime

/// How a live source is opened: which paths are network URLs or V4L2 devices, and the
/// demuxer and options libavformat gets for each.
@Suite("Media: live source options", .tags(.media)) struct LiveSourceOptionsTests {
    @Test("network URLs by scheme, case-insensitive; files, pipes and unknown schemes are not") func networkSchemes() {
        #expect(VideoSourceOptions.networkScheme(of: "SRT://127.0.0.1:9000") == "srt")
        #expect(VideoSourceOptions.networkScheme(of: "rtmp://host/live/key") == "rtmp")
        #expect(VideoSourceOptions.networkScheme(of: "http://h/index.m3u8") == "http")
        #expect(VideoSourceOptions.networkScheme(of: "clip.mp4") == nil)
        #expect(VideoSourceOptions.networkScheme(of: "file:///tmp/clip.mp4") == nil)
        #expect(VideoSourceOptions.networkScheme(of: "cam1:2024-05-01.ivf") == nil)
        #expect(VideoSourceOptions.networkScheme(of: "-") == nil)
    }

    @Test("--listen becomes each protocol's own option; udp cannot listen") func listenOptions() throws {
        var options = VideoSourceOptions()
        options.listen = true
        #expect(try options.demuxer(for: "rtmp://127.0.0.1:1935/live/x").options == ["listen": "1"])
        #expect(try options.demuxer(for: "srt://127.0.0.1:9000").options == ["mode": "listener"])
        #expect(try options.demuxer(for: "rtsp://127.0.0.1:8554/x").options == ["rtsp_flags": "listen"])
        #expect(try options.demuxer(for: "tcp://127.0.0.1:9000").url == "tcp://127.0.0.1:9000")
        #expect(throws: MediaInputError.self) { try options.demuxer(for: "udp://127.0.0.1:9000") }
        options.listen = false
        #expect(try options.demuxer(for: "udp://127.0.0.1:9000").options == [:])
    }

    @Test("a V4L2 device is a character device of major 81; /dev/null and files are not; libavdevice loads on demand and brings the v4l2 demuxer")
    func videoDevices() throws {
        #expect(!VideoSourceOptions.isVideoDevice("/dev/null"))
        #expect(!VideoSourceOptions.isVideoDevice("/etc/hostname"))
        #expect(!VideoSourceOptions.isLive("/dev/null"))
        #expect(segrec_register_devices() == 1, "libavdevice.so.\(LIBAVDEVICE_VERSION_MAJOR) loads and registers its devices")
        #expect(av_find_input_format("v4l2") != nil)
        let devices = ((try? FileManager.default.contentsOfDirectory(atPath: "/dev")) ?? []).filter { $0.hasPrefix("video") }
        for name in devices { #expect(VideoSourceOptions.isVideoDevice("/dev/" + name), "\(name) is a video4linux device") }
    }

    @Test("the watchdog expires only once armed and silent for its timeout; a touch re-arms it") func watchdog() async throws {
        let unarmed = InputWatchdog(timeout: .milliseconds(10), initialAllowance: nil)
        try await Task.sleep(for: .milliseconds(30))
        #expect(!unarmed.isExpired)
        unarmed.touch()
        #expect(!unarmed.isExpired)
        try await Task.sleep(for: .milliseconds(30))
        #expect(unarmed.isExpired)
        let armed = InputWatchdog(timeout: .seconds(60), initialAllowance: .milliseconds(1))
        try await Task.sleep(for: .milliseconds(20))
        #expect(armed.isExpired)
        armed.touch()
        #expect(!armed.isExpired)
        #expect(InputWatchdog(timeout: .milliseconds(1500), initialAllowance: nil).seconds == "1.5")
        #expect(InputWatchdog(timeout: .seconds(5), initialAllowance: nil).seconds == "5")
    }
}
