import Foundation
import Testing

@testable import SegRecCommandLine
@testable import SegRecKit
@testable import SegRecMedia
@testable import SegRecTime

/// The failure cases (`../shared/cases/`, beside the repository) used by the file-timing,
/// encoder-limit and HEVC-rate tests, and the readers that check their outputs with
/// MediaInfo and ffprobe as well as our own code.
enum TimingCases {
    /// `<repo>/../shared/cases`.
    static let folder = FootageTestSupport.samples.deletingLastPathComponent().appendingPathComponent("cases")

    static func file(_ name: String) -> URL { folder.appendingPathComponent(name) }

    /// The cases folder and ffmpeg/ffprobe are there.
    static var ready: Bool {
        FileManager.default.fileExists(atPath: folder.appendingPathComponent("README.md").path) && FootageTestSupport.tool("ffprobe") != nil
            && FootageTestSupport.tool("ffmpeg") != nil
    }

    static var hasMediaInfo: Bool { FootageTestSupport.tool("mediainfo") != nil }

    /// Runs `segrec record ARGS --output DIR --preset PRESET --quiet` in-process: exit code,
    /// output folder, manifest (if written).
    static func record(_ arguments: [String], preset: String = "veryfast") async throws -> (Int32, URL, RecordingManifest?) {
        let dir = try MediaTestSupport.makeTemporaryDirectory().appendingPathComponent("out")
        let code = await SegRecCommand.main(["record"] + arguments + ["--output", dir.path, "--preset", preset, "--quiet"])
        return (code, dir, try? ManifestReader.read(from: dir))
    }

    /// MediaInfo's reading of a file's video track.
    struct MediaInfoVideo: Equatable {
        var frameCount: Int
        var frameRate: String
        var frameRateMode: String
        /// Milliseconds.
        var duration: Int
    }

    /// `mediainfo --Inform="Video;%FrameCount%|%FrameRate%|%FrameRate_Mode%|%Duration%"`,
    /// nil without mediainfo.
    static func mediaInfo(_ file: URL) throws -> MediaInfoVideo? {
        guard let tool = FootageTestSupport.tool("mediainfo") else { return nil }
        let (_, text) = try FootageTestSupport.run(tool, ["--Inform=Video;%FrameCount%|%FrameRate%|%FrameRate_Mode%|%Duration%", file.path])
        let fields = text.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: "|", omittingEmptySubsequences: false).map(String.init)
        guard fields.count == 4 else { return nil }
        return MediaInfoVideo(frameCount: Int(fields[0]) ?? -1, frameRate: fields[1], frameRateMode: fields[2], duration: Int(fields[3]) ?? -1)
    }

    /// ffprobe's stream view: decoded frames, `r_frame_rate`, `avg_frame_rate`, time base
    /// and duration (seconds, as ffprobe prints them).
    struct ProbeStream: Equatable {
        var frames: Int
        var rFrameRate: String
        var averageFrameRate: String
        var timeBase: String
        var duration: String
        var width: Int
        var height: Int
    }

    static func probeStream(_ file: URL) throws -> ProbeStream {
        let json = try #require(
            try MediaTestSupport.ffprobeJSON(
                [
                    "-select_streams", "v:0", "-count_frames", "-show_entries",
                    "stream=nb_read_frames,r_frame_rate,avg_frame_rate,time_base,duration,width,height"
                ], file: file))
        let s = try #require((json["streams"] as? [[String: Any]])?.first)
        return ProbeStream(
            frames: Int(s["nb_read_frames"] as? String ?? "") ?? -1, rFrameRate: s["r_frame_rate"] as? String ?? "",
            averageFrameRate: s["avg_frame_rate"] as? String ?? "", timeBase: s["time_base"] as? String ?? "", duration: s["duration"] as? String ?? "",
            width: s["width"] as? Int ?? -1, height: s["height"] as? Int ?? -1)
    }

    /// ffprobe's packets in file (decode) order: pts, duration (stream ticks) and flags.
    static func probePackets(_ file: URL) throws -> [(pts: Int, duration: Int, flags: String)] {
        let json = try #require(try MediaTestSupport.ffprobeJSON(["-select_streams", "v:0", "-show_entries", "packet=pts,duration,flags"], file: file))
        let packets = try #require(json["packets"] as? [[String: Any]])
        return packets.map { ($0["pts"] as? Int ?? Int.min, $0["duration"] as? Int ?? -1, $0["flags"] as? String ?? "") }
    }

    /// ffprobe's decoded frames in presentation order: (pts, picture type, key frame).
    static func probeFrames(_ file: URL) throws -> [(pts: Int, pictureType: String, isKey: Bool)] {
        let json = try #require(try MediaTestSupport.ffprobeJSON(["-select_streams", "v:0", "-show_entries", "frame=pts,pict_type,key_frame"], file: file))
        let frames = try #require(json["frames"] as? [[String: Any]])
        return frames.map { ($0["pts"] as? Int ?? Int.min, $0["pict_type"] as? String ?? "", ($0["key_frame"] as? Int) == 1) }
    }
}
