import Foundation

/// The report's HTML: one self-contained page (inline CSS, SVG and script; no network),
/// referring only to files beside it (the segment MP4s and the posters).
enum ReportPage {
    /// What the page knows of one segment beyond the manifest.
    struct SegmentMedia {
        /// Poster path relative to the page, its pixel size, and the stream's RFC 6381 codecs.
        let poster: String
        let posterWidth: Int, posterHeight: Int
        let codecs: String
        /// The segment's sound reduced to one bucket per user unit of its bar, nil without sound.
        var waveform: Waveform? = nil
    }

    /// The whole recording's player: its HLS export's playlist (relative to the page), and
    /// whether its codec is HEVC (Chromium has no HEVC decoder).
    struct WholeRecording {
        let playlist: String
        let mediaSegments: Int
        let isHEVC: Bool
    }

    static func render(source: ExportSource, media: [SegmentMedia], whole: WholeRecording?, title: String) -> String {
        let m = source.manifest
        let camera = source.cameraName
        // Several-camera recordings: every camera that made a segment, in order of appearance.
        var used: [String] = []
        for id in m.segments.compactMap(\.camera) where !used.contains(id) { used.append(id) }
        let cameras = used.isEmpty ? camera : used.joined(separator: ", ")
        let timeline = ReportTimeline(manifest: m)
        let total = (timeline.end - timeline.start)
        var html = [head(manifest: m, title: title, cameras: cameras, cameraCount: used.count, total: total, hasSound: media.contains { $0.waveform != nil })]
        html.append(TimelineSVG.render(timeline, manifest: m, camera: camera, waveforms: media.map(\.waveform)))
        html.append("</figure>")
        html.append("<div class=\"filmstrip\">")
        for (index, s) in m.segments.enumerated() {
            let media = media[index]
            html.append(
                "<a href=\"#seg-\(index)\"><img class=\"poster\" data-index=\"\(index)\" src=\"\(HTMLText.url(media.poster))\" width=\"\(media.posterWidth)\" height=\"\(media.posterHeight)\" alt=\"\(HTMLText.escape(s.file)) first frame\" title=\"\(HTMLText.escape(s.file)): \(s.width)x\(s.height)\"></a>"
            )
        }
        html.append("</div>")
        if let whole {
            let note =
                whole.isHEVC
                ? "HEVC: a browser without an HEVC decoder (Chromium, Firefox) plays at most its sound, with no picture and often no error; open it in ffplay, mpv or Safari, or make an H.264 copy for any browser with segrec export DIR --mp4 FILE."
                : "HLS, played natively by Safari and Chromium; elsewhere open it in ffplay or mpv."
            html.append(
                """
                <h2>Whole recording</h2>
                <section class="whole" id="whole">
                <video id="whole-player" controls muted playsinline preload="none" data-hevc="\(whole.isHEVC ? "yes" : "no")" poster="\(HTMLText.url(media[0].poster))"><source src="\(HTMLText.url(whole.playlist))" type="application/vnd.apple.mpegurl"></video>
                <p class="whole-note"><a href="\(HTMLText.url(whole.playlist))">\(HTMLText.escape(whole.playlist))</a>: the HLS export of every segment (\(whole.mediaSegments) media segments, a discontinuity at each change), loaded when played. \(HTMLText.escape(note))</p>
                <p class="unsupported" hidden>This browser does not play this HLS playlist here: open it in ffplay, mpv or Safari, or serve the folder over http (Chromium plays HLS natively only over http(s), e.g. <code>python3 -m http.server -d DIR</code>, then open report.html through it).</p>
                </section>
                """)
        }
        let gapNotes = timeline.gaps.map { TimelineSVG.gapNote(previous: m.segments[$0.segment - 1], next: m.segments[$0.segment], camera: camera) }
        if !gapNotes.isEmpty {
            html.append("<h2>Camera switches</h2><ul id=\"gaps\">")
            for (gap, note) in zip(timeline.gaps, gapNotes) {
                html.append("<li class=\"gap\" data-segment=\"\(gap.segment)\"><a href=\"#seg-\(gap.segment)\">⇄</a> \(HTMLText.escape(note))</li>")
            }
            html.append("</ul>")
        }
        if let events = m.events, !events.isEmpty {
            html.append("<details id=\"events\" open><summary>\(events.count) session event\(events.count == 1 ? "" : "s")</summary><ol class=\"events\">")
            for (index, event) in events.enumerated() {
                html.append(
                    "<li class=\"event \(EventCategory(of: event.kind).rawValue)\" data-index=\"\(index)\" data-kind=\"\(event.kind.rawValue)\">\(HTMLText.escape(TimelineSVG.eventText(event)))</li>"
                )
            }
            html.append("</ol></details>")
        }

        html.append("<h2>Segments</h2>")
        for (index, s) in m.segments.enumerated() {
            html.append(segmentCard(s, index: index, media: media[index], timeline: timeline, gapNotes: gapNotes, camera: camera))
        }
        html += warningsAndDrops(m)
        if let recovery = m.recovery {
            html.append(
                "<p class=\"recovery\">Recovered after an interruption: \(recovery.framesRecovered) frames kept, \(recovery.framesLost) lost\(recovery.lostAfter.map { " after session \(DecimalSeconds.text($0)) s" } ?? "").</p>"
            )
        }
        if !m.notes.isEmpty { html.append("<h2>Notes</h2><ul id=\"notes\">" + m.notes.map { "<li>\(HTMLText.escape($0))</li>" }.joined() + "</ul>") }
        html.append("</main>")
        html.append("<footer>Written by segrec report from manifest.json. Times are exact session-clock values (\(m.sessionClock.timescale) ticks/s).</footer>")
        html.append("<script>\(script)</script>")
        html.append("</body>\n</html>\n")
        return html.joined(separator: "\n")
    }

    /// The page's head and its top: title, summary line, legend, and the timeline's opening `<figure>`.
    private static func head(manifest m: RecordingManifest, title: String, cameras: String, cameraCount: Int, total: MediaTime, hasSound: Bool) -> String {
        """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src 'self' data:; media-src 'self'; style-src 'unsafe-inline'; script-src 'unsafe-inline'">
        <title>\(HTMLText.escape(title))</title>
        <link rel="icon" href="data:,">
        <style>\(css)</style>
        </head>
        <body>
        <header>
        <h1>\(HTMLText.escape(title))</h1>
        <p class="summary" id="summary">\(m.segments.count) segment\(m.segments.count == 1 ? "" : "s"), \(DecimalSeconds.text(total, digits: 3)) s,
        \(m.frames.written) of \(m.frames.received) frames written, \(m.frames.dropped) dropped; mode <b>\(m.mode.rawValue)</b>,
        stopped: <b>\(HTMLText.escape(m.stopReason?.rawValue ?? "still recording"))</b>\(m.encoder.map { "; \(HTMLText.escape($0.encoder)) \(HTMLText.escape($0.preset)) crf \($0.crf)" } ?? "");
        camera\(cameraCount > 1 ? "s" : "") <b>\(HTMLText.escape(cameras))</b>.</p>
        </header>
        <main>
        <h2>Timeline</h2>
        <p class="legend"><span class="swatch landscape"></span>landscape <span class="swatch portrait"></span>portrait <span class="swatch square"></span>square
        <span class="key announced">▼</span> announced change (device time → session) <span class="key firstNewBuffer">▲</span> first new buffer <span class="key stop">|</span> stop.
        <span class="key gap">⇄</span> camera switch (hatched: no frame) <span class="key event">●</span> session event (rows: camera, posture, orientation, zoom, framing, format).
        Hover for exact times; bar width = duration, bar height = displayed height / longer side (after rotation)\(hasSound ? "; under each bar its sound (peaks per unit of width, full scale fills the lane)" : "").</p>
        <figure class="timeline">
        """
    }

    /// The warnings list and the dropped frames by reason (`ul#warnings`, `ul#drops`).
    private static func warningsAndDrops(_ m: RecordingManifest) -> [String] {
        var lines: [String] = []
        lines.append("<h2>Warnings and drops</h2>")
        lines.append("<ul id=\"warnings\">")
        if m.warnings.isEmpty { lines.append("<li class=\"none\">No warnings.</li>") }
        for warning in m.warnings { lines.append("<li class=\"warning\">\(HTMLText.escape(warning))</li>") }
        lines.append("</ul>")
        lines.append("<ul id=\"drops\">")
        if m.frames.droppedReasons.isEmpty { lines.append("<li class=\"none\">No frame dropped.</li>") }
        for (reason, count) in m.frames.droppedReasons.sorted(by: { $0.key < $1.key }) {
            lines.append(
                "<li class=\"drop\" data-reason=\"\(HTMLText.escape(reason))\">\(count) frame\(count == 1 ? "" : "s") dropped: \(HTMLText.escape(reason))</li>")
        }
        lines.append("</ul>")
        return lines
    }

    /// Segment `index`'s card: heading, player (poster first), and its facts.
    private static func segmentCard(_ s: SegmentRecord, index: Int, media: SegmentMedia, timeline: ReportTimeline, gapNotes: [String], camera: String) -> String
    {
        let ratio = s.aspectRatio ?? AspectText.ratio(width: s.width, height: s.height)
        let duration = s.sessionEnd - s.sessionStart
        let type = "video/mp4; codecs=&quot;\(HTMLText.escape(media.codecs))&quot;"
        var rows: [(String, String)] = [
            ("size", "\(s.width)x\(s.height) (\(ratio))"), ("frames", "\(s.frameCount), first index \(s.firstFrameIndex)"),
            ("session", "\(DecimalSeconds.text(s.sessionStart)) s → \(DecimalSeconds.text(s.sessionEnd)) s"),
            ("duration", "\(DecimalSeconds.text(duration)) s"), ("started", s.startReason.rawValue),
            ("camera", TimelineSVG.cameraLabel(of: s, fallback: camera)), ("codec", media.codecs), ("bytes", "\(s.byteCount)")
        ]
        if let rotation = s.rotationDegrees { rows.append(("rotation", "\(rotation)° clockwise (display matrix; poster and bar shown upright)")) }
        if let gap = timeline.gaps.firstIndex(where: { $0.segment == index }) { rows.append(("before it", gapNotes[gap])) }
        if let change = s.change {
            let what = change.camera.map { "camera \(change.previousCamera ?? "?") → \($0) (device time on \($0)'s clock)" } ?? (change.aspectRatio ?? "?")
            rows.append(
                (
                    "change",
                    "\(what): device \(change.deviceTime.value)/\(change.deviceTime.timescale) → session \(DecimalSeconds.text(change.sessionTime)) s\(change.announced ? "" : " (not announced)")"
                ))
        }
        return """
            <section class="segment-card" id="seg-\(index)" data-index="\(index)">
            <h3>\(HTMLText.escape(s.file)) <small>\(s.width)x\(s.height) · \(HTMLText.escape(ratio)) · \(s.frameCount) frames</small></h3>
            <video controls muted playsinline preload="none" data-index="\(index)" data-codecs="\(HTMLText.escape(media.codecs))" poster="\(HTMLText.url(media.poster))" width="\(media.posterWidth)" height="\(media.posterHeight)"><source src="\(HTMLText.url(s.file))" type="\(type)"></video>
            <p class="unsupported" hidden>This browser cannot play \(HTMLText.escape(media.codecs)) video; the poster shows the first frame.</p>\(Self.isHEVC(media.codecs) ? Self.hevcNote : "")
            <dl>\(rows.map { "<dt>\(HTMLText.escape($0.0))</dt><dd>\(HTMLText.escape($0.1))</dd>" }.joined())</dl>
            </section>
            """
    }

    /// Whether an RFC 6381 codec string names HEVC.
    static func isHEVC(_ codecs: String) -> Bool { codecs.hasPrefix("hev1") || codecs.hasPrefix("hvc1") }

    /// Shown under every HEVC segment's player, whatever the browser says: Chromium may
    /// report it playable (`canPlayType`) and then play the sound alone, no picture, no error.
    static let hevcNote =
        "<p class=\"hevc-note\">HEVC: a browser without an HEVC decoder (Chromium, Firefox) plays only this file's sound, with no picture and often no error; Safari, ffplay and mpv play it. For a picture in any browser: <code>segrec export DIR --mp4 FILE</code> (one H.264 file).</p>"

    static let css = """
        body{font:14px/1.4 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0 auto;max-width:1100px;padding:0 16px 32px;color:#1d1d1f;background:#fafafa}
        h1{font-size:20px;margin:16px 0 4px}h2{font-size:16px;margin:20px 0 6px}h3{font-size:14px;margin:0 0 6px}h3 small{color:#555;font-weight:normal}
        .summary{margin:0;color:#333}.legend{font-size:12px;color:#444}
        .swatch{display:inline-block;width:12px;height:10px;margin:0 3px 0 8px;vertical-align:-1px;border:1px solid #0003}
        .swatch.landscape,rect.landscape{fill:#4e8ad6;background:#4e8ad6}.swatch.portrait,rect.portrait{fill:#e08a3c;background:#e08a3c}.swatch.square,rect.square{fill:#5bb36a;background:#5bb36a}
        .key{margin-left:8px}.key.announced{color:#b00020}.key.firstNewBuffer{color:#222}.key.stop{color:#777;font-weight:bold}
        figure.timeline{margin:0;background:#fff;border:1px solid #ddd;border-radius:6px;padding:4px}
        #timeline{width:100%;height:auto;display:block}
        #timeline .wave-lane{fill:#f5f7fa;stroke:#d0d7de;stroke-width:.5}
        #timeline .wave{stroke:#1565c0;stroke-width:.8;fill:none}
        rect.segment{stroke:#fff;stroke-width:1}rect.segment:hover,rect.segment.selected{stroke:#000;stroke-width:2}
        text.label{font-size:11px;fill:#fff;pointer-events:none}text.tick-label{font-size:11px;fill:#333;text-anchor:middle}text.axis-title{font-size:11px;fill:#666;text-anchor:end}
        line.axis,line.tick{stroke:#555}line.marker{stroke-width:1.5}line.marker.announced{stroke:#b00020;stroke-dasharray:4 2}line.marker.firstNewBuffer{stroke:#222}line.marker.stop{stroke:#777;stroke-width:3}
        polygon.announced{fill:#b00020}polygon.firstNewBuffer{fill:#222}polygon.stop{fill:#777}
        .filmstrip{display:flex;gap:6px;overflow-x:auto;padding:8px 0}.filmstrip img{height:72px;width:auto;border:1px solid #ccc;border-radius:3px;background:#000}
        .segment-card{display:grid;grid-template-columns:auto 1fr;grid-template-rows:auto 1fr;gap:4px 16px;background:#fff;border:1px solid #ddd;border-radius:6px;padding:10px;margin:8px 0}
        .segment-card.selected{outline:2px solid #4e8ad6}
        .segment-card h3{grid-column:1/3}.segment-card video{max-width:320px;max-height:320px;width:auto;height:auto;background:#000}
        .segment-card dl{margin:0;align-self:start;display:grid;grid-template-columns:max-content 1fr;gap:2px 10px;font-size:13px}.segment-card dt{color:#666}.segment-card dd{margin:0;font-variant-numeric:tabular-nums}
        .unsupported,.hevc-note{grid-column:1;color:#b00020;font-size:12px;margin:0}
        .key.gap{color:#6a1b9a}.key.event{color:#00695c}
        g.gap rect.gap{fill:url(#hatch);stroke:#6a1b9a;stroke-width:1}text.gap-label{font-size:11px;fill:#6a1b9a;text-anchor:middle}
        circle.event{stroke:#fff;stroke-width:1}circle.event.camera{fill:#6a1b9a}circle.event.posture{fill:#00695c}circle.event.orientation{fill:#c62828}
        circle.event.zoom{fill:#1565c0}circle.event.framing{fill:#ef6c00}circle.event.format{fill:#555}circle.event.source{fill:#c62828}text.event-row{font-size:10px;fill:#666;text-anchor:end}
        section.whole video{max-width:100%;max-height:240px;background:#000}.whole-note{font-size:12px;color:#444;margin:4px 0}
        #gaps li{color:#6a1b9a}ol.events{font-size:12px;columns:2;margin:4px 0}ol.events li.camera{color:#6a1b9a}ol.events li.orientation{color:#c62828}
        #warnings li.warning{color:#8a5300}#drops li.drop{color:#b00020}li.none{color:#666}
        footer{margin-top:24px;font-size:12px;color:#777}
        """

    static let script = """
        (function () {
          "use strict";
          function select(index) {
            document.querySelectorAll(".selected").forEach(function (e) { e.classList.remove("selected"); });
            document.querySelectorAll('[data-index="' + index + '"]').forEach(function (e) {
              if (e.matches("rect.segment, section.segment-card")) { e.classList.add("selected"); }
            });
          }
          document.querySelectorAll("rect.segment").forEach(function (rect) {
            rect.addEventListener("click", function () { select(rect.getAttribute("data-index")); });
          });
          var whole = document.getElementById("whole-player");
          if (whole) {
            var note = whole.parentNode.querySelector(".unsupported");
            if (whole.canPlayType("application/vnd.apple.mpegurl") === "" || whole.getAttribute("data-hevc") === "yes" &&
                whole.canPlayType('video/mp4; codecs="hev1.1.6.L93.B0"') === "") {
              whole.setAttribute("data-playable", "no"); note.hidden = false;
            } else {
              whole.setAttribute("data-playable", "maybe");
              whole.querySelector("source").addEventListener("error", function () { whole.setAttribute("data-playable", "no"); note.hidden = false; });
            }
          }
          document.querySelectorAll("section.segment-card video").forEach(function (video) {
            var type = video.querySelector("source").getAttribute("type");
            var note = video.parentNode.querySelector(".unsupported");
            function unsupported() { video.setAttribute("data-playable", "no"); note.hidden = false; }
            if (video.canPlayType(type) === "") { unsupported(); return; }
            video.setAttribute("data-playable", "maybe");
            video.querySelector("source").addEventListener("error", unsupported);
            // Loaded with no picture (sound only: HEVC in Chromium): not playable here.
            video.addEventListener("loadeddata", function () {
              if (video.videoWidth === 0) { unsupported(); } else { video.setAttribute("data-playable", "yes"); }
            });
            video.addEventListener("play", function () { select(video.getAttribute("data-index")); });
          });
          if (location.hash.indexOf("#seg-") === 0) { select(location.hash.slice(5)); }
        })();
        """
}
