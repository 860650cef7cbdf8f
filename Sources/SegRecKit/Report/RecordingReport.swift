import Foundation

/// `segrec report DIR`: writes `DIR/report.html`, a poster per segment in
/// `DIR/report-posters/` (JPEG, upright, from `PosterFrameExtractor`) and the whole
/// recording's HLS export in `DIR/report-hls/` (its one player). The page is self-contained
/// (inline CSS, SVG and script, no network) and refers to the files beside it; no video
/// loads before it is played (`preload="none"`).
package enum RecordingReport {
    /// The page's file name inside the recording folder.
    package static let pageName = "report.html"
    /// The posters' folder name inside the recording folder.
    package static let postersFolder = "report-posters"
    /// The folder of the whole recording's HLS export (the page's one player), inside the
    /// recording folder.
    package static let hlsFolder = "report-hls"

    /// What ``write(for:force:posterSide:)`` wrote.
    package struct Result: Sendable, Equatable {
        /// The page.
        package let page: URL
        /// The posters, one per segment, in segment order.
        package let posters: [URL]
        /// Bytes of the page.
        package let pageBytes: Int
        /// The whole recording's HLS export (``RecordingExporter/exportHLS(from:to:wallClock:mediaSegmentDuration:discontinuities:force:)``
        /// into ``hlsFolder``, with `EXT-X-DISCONTINUITY` before each file after the first: the
        /// form Chromium's native HLS plays), which the page's one player plays.
        package let hls: RecordingExporter.HLSResult
    }

    /// Writes the report for the recording in `directory`.
    /// - Parameters:
    ///   - directory: the recording folder; the page and posters are written into it.
    ///   - force: replace an existing page and posters (only those files); without it an
    ///     existing page is an error. Posters and an HLS export without a page (what a
    ///     killed or failed report left: the page is written last) are replaced either way.
    ///     Posters are written as `NAME.partial` and renamed once the HLS export is whole,
    ///     and the page replaces an earlier one by a rename, so a report stopped midway
    ///     leaves the earlier report whole.
    ///   - posterSide: the posters' longer side at most, in pixels.
    /// - Throws: what `ExportSource/init(directory:)` throws;
    ///   ``RecordingError/outputExists(path:)`` without `force`;
    ///   ``RecordingError/cannotCreateOutput(path:detail:)`` when `report-posters` is a
    ///   symbolic link or not a folder (even with `force`); ``FFmpegError`` when a
    ///   segment's first frame cannot be decoded (the posters' `.partial` files are removed).
    package static func write(for directory: URL, force: Bool = false, posterSide: Int = 320) throws -> Result {
        let source = try ExportSource(directory: directory)
        let posters = directory.appendingPathComponent(postersFolder)
        let pagePath = directory.appendingPathComponent(pageName).path
        let posterNames = source.manifest.segments.map { ($0.file as NSString).deletingPathExtension + ".jpg" }
        // Replaced only at the end (a rename), so a report stopped midway leaves the earlier page.
        _ = try ExportOutput(folder: directory, paths: [pagePath], force: force, removesExisting: false)
        // The page is written last: posters or an HLS export without it are what a killed or
        // failed report left, and this report replaces them (its own names only).
        let replacesLeftovers = force || !SafeFile.exists(path: pagePath)
        // Inside the recording, nothing is followed: a link (or file) named like the
        // posters' folder is somebody else's, even with --force.
        if let problem = SafeFile.notRegularFolder(path: posters.path) {
            throw RecordingError.cannotCreateOutput(
                path: posters.path, detail: "\(problem); the report writes its posters only into a folder of its own there: move it away")
        }
        let posterPaths = posterNames.map { posters.appendingPathComponent($0).path }
        _ = try ExportOutput(folder: posters, paths: posterPaths, force: replacesLeftovers, removesExisting: false)
        let stagedPosters = try StagedExportFiles(finals: posterPaths, source: source)
        let hlsFolder = directory.appendingPathComponent(hlsFolder)
        if let problem = SafeFile.notRegularFolder(path: hlsFolder.path) {
            throw RecordingError.cannotCreateOutput(
                path: hlsFolder.path, detail: "\(problem); the report writes its HLS export only into a folder of its own there: move it away")
        }
        var written: [URL] = []
        do {
            var media: [ReportPage.SegmentMedia] = []
            let bars = ReportTimeline(manifest: source.manifest).bars
            for (segment, (name, bar)) in zip(source.manifest.segments, zip(posterNames, bars)) {
                let url = posters.appendingPathComponent(name)
                let poster = try PosterFrameExtractor.extract(from: source.path(of: segment), to: StagedExportFiles.staged(url.path), maximumSide: posterSide)
                written.append(url)
                media.append(
                    ReportPage.SegmentMedia(
                        poster: postersFolder + "/" + name, posterWidth: poster.width, posterHeight: poster.height, codecs: poster.codecs,
                        waveform: try waveform(of: segment, in: source, width: bar.width)))
            }
            let hls = try RecordingExporter.exportHLS(from: directory, to: hlsFolder, discontinuities: true, force: replacesLeftovers)
            try stagedPosters.commit()
            let whole = ReportPage.WholeRecording(
                playlist: Self.hlsFolder + "/" + hls.playlist.lastPathComponent, mediaSegments: hls.segments,
                isHEVC: source.manifest.encoder?.codec == "hevc" || media.contains { $0.codecs.hasPrefix("hev1") || $0.codecs.hasPrefix("hvc1") })
            let title = "segrec report: \(directory.standardizedFileURL.lastPathComponent)"
            let html = ReportPage.render(source: source, media: media, whole: whole, title: title)
            try ExportOutput.writeText(html, to: pagePath)
            return Result(page: URL(fileURLWithPath: pagePath), posters: written, pageBytes: html.utf8.count, hls: hls)
        } catch {
            stagedPosters.discard()
            throw error
        }
    }

    /// A segment's waveform for its bar of `width` user units: its audio track decoded
    /// (``AudioTrackReader``, mono, cut to the declared length), one bucket per unit; nil when
    /// the manifest gives the segment no sound.
    /// - Throws: ``FFmpegError`` from decoding.
    static func waveform(of segment: SegmentRecord, in source: ExportSource, width: Double) throws -> Waveform? {
        guard segment.audio != nil, let track = try AudioTrackReader.read(URL(fileURLWithPath: source.path(of: segment))) else { return nil }
        return Waveform(samples: track.samples, buckets: max(1, Int(width.rounded())))
    }
}
