import CFFmpeg
import SegRecTime

/// A chapter of a movie file: where it starts (file time, seconds from the file's start as
/// an exact rational) and its title. Written as MP4 chapters: a QuickTime chapter track
/// (`chap`) and Nero's `chpl` list, what libavformat's `mp4` muxer makes of
/// `AVFormatContext.chapters` and what players list (ffprobe `-show_chapters`, mpv, VLC).
package struct MovieChapter: Sendable, Hashable {
    /// Where the chapter starts, from the file's start.
    package var start: MediaTime
    /// Its title (the chapter's `title` tag).
    package var title: String

    package init(start: MediaTime, title: String) {
        self.start = start
        self.title = title
    }

    /// Microseconds, the chapters' time base.
    static let timeBase = AVRational(num: 1, den: 1_000_000)

    /// Adds `chapters` (in order of their starts) to `format` before its header is
    /// written, each lasting until the next one's start, the last until `end` (file time).
    /// Chapters at or after `end` are left out.
    /// - Throws: ``FFmpegError`` (`segrec_add_chapter`: out of memory).
    static func add(_ chapters: [MovieChapter], to format: OutputFormatContext, end: MediaTime) throws(FFmpegError) {
        func microseconds(_ time: MediaTime) -> Int64 { (try? time.converted(toTimescale: 1_000_000, rounding: .roundHalfAwayFromZero).value) ?? 0 }
        let endMicroseconds = microseconds(end)
        let kept = chapters.map { (start: max(0, microseconds($0.start)), title: $0.title) }.filter { $0.start < endMicroseconds }
        for (index, chapter) in kept.enumerated() {
            let chapterEnd = index + 1 < kept.count ? kept[index + 1].start : endMicroseconds
            try check(
                segrec_add_chapter(format.pointer, Int64(index), timeBase, chapter.start, max(chapter.start, chapterEnd), chapter.title), "segrec_add_chapter",
                context: chapter.title)
        }
    }
}
