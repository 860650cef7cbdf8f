import Foundation

/// Draws a ``ReportTimeline`` as inline SVG: a bar per segment (`rect.segment` with
/// `data-index`, `data-file`, `data-width`, `data-height`, `data-frames`, `data-duration`),
/// its labels where the bar is wide enough, markers (`line.marker` with `data-kind`) whose
/// `<title>` gives the exact times, a seconds axis on the session clock and, when the
/// segments have sound, each one's waveform in a lane right under its bar (`g.waveform`,
/// ``waveformLane``).
enum TimelineSVG {
    /// Height of the waveform lane under the bars, in user units (0 without sound).
    static let waveformLane = 36.0

    /// The SVG; `waveforms[i]` (when given) is segment `i`'s sound, one bucket per user unit
    /// of its bar.
    static func render(_ timeline: ReportTimeline, manifest: RecordingManifest, camera: String, waveforms: [Waveform?] = []) -> String {
        let segments = manifest.segments
        let top = 28.0
        let barBase = top + ReportTimeline.barHeight
        let hasSound = waveforms.contains { $0 != nil }
        // Everything below the bars moves down by the waveform lane.
        let below = barBase + (hasSound ? waveformLane : 0)
        let totalWidth = timeline.width + 2 * timeline.margin
        // Event rows below the axis: one per category that has events.
        let rows = EventCategory.allCases.filter { category in timeline.events.contains { EventCategory(of: $0.kind) == category } }
        let eventsTop = below + 52
        let height = below + 44 + (rows.isEmpty ? 0 : 14 * Double(rows.count) + 14)
        var svg = [
            "<svg id=\"timeline\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 \(fmt(totalWidth)) \(fmt(height))\" role=\"img\" aria-label=\"Timeline of \(segments.count) segment(s), drawn to scale\">",
            "<defs><pattern id=\"hatch\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\"><rect width=\"6\" height=\"6\" fill=\"#f3e5f5\"/><line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#6a1b9a\" stroke-width=\"2\"/></pattern></defs>"
        ]
        for bar in timeline.bars { svg += barSVG(bar, segment: segments[bar.index], camera: camera, barBase: barBase) }
        for (bar, waveform) in zip(timeline.bars, waveforms) {
            guard let waveform else { continue }
            svg.append(waveformSVG(waveform, bar: bar, segment: segments[bar.index], top: barBase + 3, height: waveformLane - 6))
        }
        for gap in timeline.gaps {
            let s = segments[gap.segment]
            let previous = segments[gap.segment - 1]
            let title = gapNote(previous: previous, next: s, camera: camera)
            svg.append(
                "<g class=\"gap\" data-segment=\"\(gap.segment)\" data-from=\"\(DecimalSeconds.text(gap.from))\" data-to=\"\(DecimalSeconds.text(gap.to))\"><rect class=\"gap\" x=\"\(fmt(gap.x))\" y=\"\(fmt(top))\" width=\"\(fmt(gap.width))\" height=\"\(fmt(ReportTimeline.barHeight))\"/><text class=\"gap-label\" x=\"\(fmt(gap.x + gap.width / 2))\" y=\"\(fmt(top - 2))\">⇄</text><title>\(HTMLText.escape(title))</title></g>"
            )
        }
        for marker in timeline.markers {
            svg.append(
                "<line class=\"marker \(marker.kind.rawValue)\" data-kind=\"\(marker.kind.rawValue)\" data-segment=\"\(marker.segment.map(String.init) ?? "")\" x1=\"\(fmt(marker.x))\" x2=\"\(fmt(marker.x))\" y1=\"\(fmt(top - 18))\" y2=\"\(fmt(below + 6))\"><title>\(HTMLText.escape(markerTitle(marker, manifest: manifest)))</title></line>"
            )
            let shape =
                marker.kind == .announced
                ? "\(fmt(marker.x - 5)),\(fmt(top - 18)) \(fmt(marker.x + 5)),\(fmt(top - 18)) \(fmt(marker.x)),\(fmt(top - 10))"
                : "\(fmt(marker.x - 4)),\(fmt(top - 4)) \(fmt(marker.x + 4)),\(fmt(top - 4)) \(fmt(marker.x)),\(fmt(top + 4))"
            svg.append(
                "<polygon class=\"marker-head \(marker.kind.rawValue)\" points=\"\(shape)\"><title>\(HTMLText.escape(markerTitle(marker, manifest: manifest)))</title></polygon>"
            )
        }
        svg.append(
            "<line class=\"axis\" x1=\"\(fmt(timeline.margin))\" x2=\"\(fmt(timeline.margin + timeline.width))\" y1=\"\(fmt(below + 8))\" y2=\"\(fmt(below + 8))\"/>"
        )
        for tick in timeline.ticks {
            svg.append("<line class=\"tick\" x1=\"\(fmt(tick.x))\" x2=\"\(fmt(tick.x))\" y1=\"\(fmt(below + 8))\" y2=\"\(fmt(below + 13))\"/>")
            svg.append("<text class=\"tick-label\" x=\"\(fmt(tick.x))\" y=\"\(fmt(below + 26))\">\(tickText(tick.seconds)) s</text>")
        }
        for (row, category) in rows.enumerated() {
            let y = eventsTop + 14 * Double(row)
            svg.append("<text class=\"event-row\" x=\"\(fmt(timeline.margin + timeline.width))\" y=\"\(fmt(y + 4))\">\(category.rawValue)</text>")
            for mark in timeline.events where EventCategory(of: mark.kind) == category {
                let event = manifest.events![mark.index]
                svg.append(
                    "<circle class=\"event \(category.rawValue)\" data-index=\"\(mark.index)\" data-kind=\"\(mark.kind.rawValue)\" data-time=\"\(DecimalSeconds.text(mark.time))\" cx=\"\(fmt(mark.x))\" cy=\"\(fmt(y))\" r=\"4\"><title>\(HTMLText.escape(eventText(event)))</title></circle>"
                )
            }
        }
        svg.append("<text class=\"axis-title\" x=\"\(fmt(timeline.margin + timeline.width))\" y=\"\(fmt(below + 40))\">session clock (s)</text>")
        svg.append("</svg>")
        return svg.joined(separator: "\n")
    }

    /// One segment's bar (`rect.segment`, linked to its card) with its labels where the
    /// bar is wide enough: the size, ratio, frames and camera across, or the size (else
    /// the ratio) turned 90° in a narrow bar.
    static func barSVG(_ bar: ReportTimeline.Bar, segment s: SegmentRecord, camera: String, barBase: Double) -> [String] {
        var svg: [String] = []
        let duration = s.sessionEnd - s.sessionStart
        let ratio = s.aspectRatio ?? AspectText.ratio(width: s.width, height: s.height)
        let camera = cameraLabel(of: s, fallback: camera)
        let title =
            "\(s.file): \(s.width)x\(s.height) (\(ratio)), \(s.frameCount) frames, camera \(camera)\n"
            + "session \(DecimalSeconds.text(s.sessionStart)) s to \(DecimalSeconds.text(s.sessionEnd)) s (\(DecimalSeconds.text(duration)) s)\n"
            + "started: \(s.startReason.rawValue)"
        let y = barBase - bar.height
        svg.append("<a href=\"#seg-\(bar.index)\">")
        svg.append(
            "<rect class=\"segment \(AspectText.cssClass(width: ReportTimeline.displayed(s).width, height: ReportTimeline.displayed(s).height))\" x=\"\(fmt(bar.x))\" y=\"\(fmt(y))\" width=\"\(fmt(bar.width))\" height=\"\(fmt(bar.height))\" data-index=\"\(bar.index)\" data-file=\"\(HTMLText.escape(s.file))\" data-width=\"\(s.width)\" data-height=\"\(s.height)\" data-frames=\"\(s.frameCount)\" data-duration=\"\(DecimalSeconds.text(duration))\" data-camera=\"\(HTMLText.escape(s.camera ?? camera))\" data-rotation=\"\(s.rotationDegrees ?? 0)\"\(s.facing.map { " data-facing=\"\($0.rawValue)\"" } ?? "")><title>\(HTMLText.escape(title))</title></rect>"
        )
        let turn = (s.rotationDegrees ?? 0) % 360 == 0 ? "" : " ↻\(s.rotationDegrees ?? 0)°"
        let lines = ["\(s.width)x\(s.height)\(turn)", ratio, "\(s.frameCount) fr", camera]
        if bar.width >= 64 {
            for (n, line) in lines.enumerated() where y + 14 + Double(n) * 13 < barBase {
                svg.append("<text class=\"label\" x=\"\(fmt(bar.x + 4))\" y=\"\(fmt(y + 14 + Double(n) * 13))\">\(HTMLText.escape(line))</text>")
            }
        } else if bar.width >= 11, let text = [lines[0], ratio].first(where: { Double($0.count) * 6.5 + 6 <= bar.height }) {
            // Turned 90°: the size if it fits the bar's height, else the ratio.
            svg.append(
                "<text class=\"label vertical\" transform=\"translate(\(fmt(bar.x + bar.width / 2 + 4)) \(fmt(barBase - 4))) rotate(-90)\">\(HTMLText.escape(text))</text>"
            )
        }
        svg.append("</a>")
        return svg
    }

    /// One segment's waveform under its bar: a lane (`rect.wave-lane`, the bar's x and
    /// width) and one vertical stroke per bucket from its lowest to its highest value
    /// (`path.wave`; full scale fills the lane), bucket `b` centred at `x + (b + ½)·width/buckets`;
    /// `data-x`, `data-width` (the bar's), `data-samples`, `data-rate` and `data-loudest`
    /// (the loudest bucket's centre x) for tests.
    static func waveformSVG(_ waveform: Waveform, bar: ReportTimeline.Bar, segment: SegmentRecord, top: Double, height: Double) -> String {
        let buckets = waveform.minimum.count
        let step = bar.width / Double(max(1, buckets))
        let middle = top + height / 2
        var d: [String] = []
        d.reserveCapacity(buckets)
        for b in 0..<buckets {
            let x = bar.x + (Double(b) + 0.5) * step
            var high = middle - Double(min(1, max(-1, waveform.maximum[b]))) * height / 2
            var low = middle - Double(min(1, max(-1, waveform.minimum[b]))) * height / 2
            if low - high < 0.5 {
                // Silence still draws a hairline.
                high -= 0.25
                low += 0.25
            }
            d.append("M\(fmt(x)) \(fmt(high))V\(fmt(low))")
        }
        let rate = segment.audio?.sampleRate ?? 0
        let loudest = waveform.loudestBucket.map { fmt(bar.x + (Double($0) + 0.5) * step) } ?? ""
        let title =
            "\(segment.file): sound, \(waveform.sampleCount) samples at \(rate) Hz, session \(DecimalSeconds.text(segment.sessionStart)) s to \(DecimalSeconds.text(segment.sessionEnd)) s"
        return
            "<g class=\"waveform\" data-segment=\"\(bar.index)\" data-x=\"\(fmt(bar.x))\" data-width=\"\(fmt(bar.width))\" data-samples=\"\(waveform.sampleCount)\" data-rate=\"\(rate)\" data-loudest=\"\(loudest)\"><rect class=\"wave-lane\" x=\"\(fmt(bar.x))\" y=\"\(fmt(top))\" width=\"\(fmt(bar.width))\" height=\"\(fmt(height))\"/><path class=\"wave\" d=\"\(d.joined())\"/><title>\(HTMLText.escape(title))</title></g>"
    }

    /// What a camera-switch gap is: its exact length and the cameras on either side.
    static func gapNote(previous: SegmentRecord, next: SegmentRecord, camera: String) -> String {
        let picturesEnd = previous.framesEnd ?? previous.sessionEnd
        let length = next.sessionStart - picturesEnd
        let from = next.change?.previousCamera ?? previous.camera ?? camera
        let to = next.change?.camera ?? next.camera ?? camera
        return
            "camera switch \(from) → \(to): no frame from session \(DecimalSeconds.text(picturesEnd)) s (end of \(previous.file)'s last frame) to \(DecimalSeconds.text(next.sessionStart)) s (first frame of \(next.file)), a gap of \(DecimalSeconds.text(length, digits: 6)) s"
    }

    /// One line for a session event: kind, camera, from → to, message, exact session time.
    static func eventText(_ event: SessionEventRecord) -> String {
        var text = "\(event.kind.rawValue)"
        if let camera = event.camera { text += " (\(camera))" }
        if event.from != nil || event.to != nil { text += ": \(event.from ?? "–") → \(event.to ?? "–")" }
        if let message = event.message { text += "; \(message)" }
        text += " at session \(DecimalSeconds.text(event.sessionTime)) s"
        if let frame = event.frameIndex { text += ", frame \(frame)" }
        return text
    }

    /// The camera a segment came from: its own `camera` and `facing` (`inner (user)`) in
    /// several-camera recordings, else `fallback` (the recording-wide name).
    static func cameraLabel(of segment: SegmentRecord, fallback: String) -> String {
        guard let camera = segment.camera else { return fallback }
        return segment.facing.map { "\(camera) (\($0.rawValue))" } ?? camera
    }

    /// Hover text of a marker with its exact times.
    static func markerTitle(_ marker: ReportTimeline.Marker, manifest: RecordingManifest) -> String {
        switch marker.kind {
        case .stop:
            return
                "recording stopped (\(manifest.stopReason?.rawValue ?? "?")) at session \(DecimalSeconds.text(marker.time)) s = \(marker.time.value)/\(marker.time.timescale)"
        case .announced:
            let s = manifest.segments[marker.segment ?? 0]
            let change = s.change!
            if let camera = change.camera {
                return
                    "\(s.file): camera switched from \(change.previousCamera ?? "?") to \(camera), first frame at device time \(change.deviceTime.value)/\(change.deviceTime.timescale) (\(DecimalSeconds.text(change.deviceTime)) s on \(camera)'s device clock) = session \(DecimalSeconds.text(change.sessionTime)) s"
            }
            return
                "\(s.file): setDynamicAspectRatio(\(change.aspectRatio ?? "?")) announced device time \(change.deviceTime.value)/\(change.deviceTime.timescale) (\(DecimalSeconds.text(change.deviceTime)) s on the device clock) = session \(DecimalSeconds.text(change.sessionTime)) s"
        case .firstNewBuffer:
            let s = manifest.segments[marker.segment ?? 0]
            var text =
                "\(s.file): first buffer of \(s.width)x\(s.height)\(s.camera.map { " from camera \($0)" } ?? "") at session \(DecimalSeconds.text(s.sessionStart)) s = \(s.sessionStart.value)/\(s.sessionStart.timescale) (\(s.startReason.rawValue))"
            if let change = s.change, change.sessionTime != s.sessionStart {
                text += "; announced session \(DecimalSeconds.text(change.sessionTime)) s differs: the buffers win"
            } else if let change = s.change, !change.announced {
                text += "; no announcement arrived (device time \(change.deviceTime.value)/\(change.deviceTime.timescale) from the buffer)"
            }
            if let change = s.change, let camera = change.camera {
                text +=
                    "; camera switched from \(change.previousCamera ?? "?") to \(camera), device time \(change.deviceTime.value)/\(change.deviceTime.timescale) on \(camera)'s device clock"
            }
            return text
        }
    }

    static func fmt(_ value: Double) -> String {
        let rounded = (value * 100).rounded() / 100
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
    }

    static func tickText(_ seconds: Double) -> String {
        var text = String(format: "%.3f", seconds)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }
}

/// Aspect ratio words for the report.
enum AspectText {
    /// `16x9` style reduced ratio of a frame size (for footage without `aspectRatio`).
    static func ratio(width: Int, height: Int) -> String {
        func gcd(_ a: Int, _ b: Int) -> Int { b == 0 ? max(a, 1) : gcd(b, a % b) }
        let d = gcd(width, height)
        return "\(width / d)x\(height / d)"
    }

    /// `landscape`, `portrait` or `square`: the bar's colour.
    static func cssClass(width: Int, height: Int) -> String { width > height ? "landscape" : width < height ? "portrait" : "square" }
}

/// The rows of the report's events lane: a session event's kind grouped by what it changes.
enum EventCategory: String, CaseIterable {
    case camera, posture, orientation, zoom, framing, format, source

    init(of kind: SessionEventRecord.Kind) {
        switch kind {
        case .cameraSwitched, .constituentSwapped, .facingChanged, .mirroringChanged: self = .camera
        case .postureChanged, .viewMoved, .drivingViewChanged, .viewFacingChanged: self = .posture
        case .deviceOrientationChanged, .rotationChanged: self = .orientation
        case .zoomChanged: self = .zoom
        case .smartFramingChanged, .smartFramingStartFailed, .smartFramingRecommended, .centerStageEnabledChanged, .centerStageActiveChanged,
            .centerStageToggleIgnored, .aspectRatioRequestFailed, .depthDataDeliveryChanged, .geometricDistortionCorrectionChanged:
            self = .framing
        case .activeFormatChanged, .videoStabilizationModeChanged: self = .format
        case .liveSourceReconnected: self = .source
        }
    }
}
