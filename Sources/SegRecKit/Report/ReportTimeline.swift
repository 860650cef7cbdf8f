/// The report's timeline laid out to scale: one bar per segment whose width is its
/// duration, and markers at the change times, in SVG user units. Pure layout: exact times
/// stay ``MediaTime``; only the pixel positions are `Double`.
package struct ReportTimeline: Sendable {
    /// One segment's bar.
    package struct Bar: Sendable, Equatable {
        /// Index in the manifest's `segments`.
        package let index: Int
        /// Left edge and width in user units.
        package let x: Double, width: Double
        /// Bar height in user units: taller for portrait frames (height / longer side).
        package let height: Double
    }

    /// What a marker marks.
    package enum MarkerKind: String, Sendable {
        /// The session time of the device time `setDynamicAspectRatio` announced.
        case announced
        /// The first buffer with the new dimensions (the segment's `sessionStart`).
        case firstNewBuffer
        /// Where the recording stopped (`stopTime`).
        case stop
    }

    /// A vertical line at an exact session time.
    package struct Marker: Sendable, Equatable {
        /// The segment it belongs to (the one the change opened), or nil for `stop`.
        package let segment: Int?
        package let kind: MarkerKind
        /// Session time it stands for.
        package let time: MediaTime
        /// Position in user units.
        package let x: Double
    }

    /// A session event (the manifest's `events`) at its exact time.
    package struct EventMark: Sendable, Equatable {
        /// Index in the manifest's `events`.
        package let index: Int
        package let kind: SessionEventRecord.Kind
        package let time: MediaTime
        /// Position in user units (clamped to the drawing area).
        package let x: Double
    }

    /// A camera switch: from the end of the previous segment's pictures (its `framesEnd`,
    /// else its `sessionEnd`) to the next segment's first frame (no frame is recorded in
    /// between; zero long when the cameras hand over at once).
    package struct Gap: Sendable, Equatable {
        /// The segment the switch opened.
        package let segment: Int
        /// The previous segment's `framesEnd` (else `sessionEnd`) and this segment's `sessionStart`.
        package let from: MediaTime, to: MediaTime
        /// Left edge and width in user units (at least 1, so a zero gap still shows).
        package let x: Double, width: Double
    }

    /// Total width of the drawing area and its left margin, in user units.
    package let width: Double, margin: Double
    /// First segment's `sessionStart` and the timeline's end (last `sessionEnd`, or a later
    /// `stopTime`).
    package let start: MediaTime, end: MediaTime
    package let bars: [Bar]
    package let markers: [Marker]
    /// Every entry of the manifest's `events`, in order.
    package let events: [EventMark]
    /// Every camera switch between consecutive segments.
    package let gaps: [Gap]

    /// The tallest bar, in user units (a square or portrait frame).
    package static let barHeight = 80.0

    /// Lays out `manifest` over `width` user units (plus `margin` on both sides).
    package init(manifest: RecordingManifest, width: Double = 1000, margin: Double = 12) {
        self.width = width
        self.margin = margin
        let segments = manifest.segments
        let start = segments.first?.sessionStart ?? .zero
        var end = segments.last?.sessionEnd ?? .zero
        if let stop = manifest.stopTime, stop > end { end = stop }
        self.start = start
        self.end = end
        let total = (end - start).seconds
        func x(_ t: MediaTime) -> Double { margin + (total > 0 ? (t - start).seconds / total * width : 0) }
        bars = segments.enumerated().map { index, s in
            let left = x(s.sessionStart)
            let shown = Self.displayed(s)
            let longer = Double(max(shown.width, shown.height, 1))
            return Bar(index: index, x: left, width: max(0, x(s.sessionEnd) - left), height: Self.barHeight * Double(shown.height) / longer)
        }
        let low = margin
        let high = margin + width
        events = (manifest.events ?? []).enumerated().map { index, event in
            EventMark(index: index, kind: event.kind, time: event.sessionTime, x: min(high, max(low, x(event.sessionTime))))
        }
        gaps = zip(segments.indices.dropFirst(), zip(segments, segments.dropFirst())).compactMap { index, pair in
            let (previous, next) = pair
            guard Self.isCameraSwitch(from: previous, to: next) else { return nil }
            let from = previous.framesEnd ?? previous.sessionEnd
            let left = x(from)
            return Gap(segment: index, from: from, to: next.sessionStart, x: left, width: max(1, x(next.sessionStart) - left))
        }
        var markers: [Marker] = []
        for (index, s) in segments.enumerated() where index > 0 || s.change != nil {
            if let change = s.change, change.announced {
                markers.append(Marker(segment: index, kind: .announced, time: change.sessionTime, x: x(change.sessionTime)))
            }
            markers.append(Marker(segment: index, kind: .firstNewBuffer, time: s.sessionStart, x: x(s.sessionStart)))
        }
        if let stop = manifest.stopTime { markers.append(Marker(segment: nil, kind: .stop, time: stop, x: x(stop))) }
        self.markers = markers
    }

    /// A segment's size as a player shows it: width and height swapped for a quarter turn
    /// (`rotationDegrees` 90 or 270, clockwise).
    package static func displayed(_ segment: SegmentRecord) -> (width: Int, height: Int) {
        abs(segment.rotationDegrees ?? 0) % 180 == 90 ? (segment.height, segment.width) : (segment.width, segment.height)
    }

    /// Whether `next` comes from another camera than `previous` (its `change` names a camera,
    /// or the segments' `camera` differ).
    package static func isCameraSwitch(from previous: SegmentRecord, to next: SegmentRecord) -> Bool {
        next.change?.camera != nil || (previous.camera != nil && next.camera != nil && previous.camera != next.camera)
    }

    /// Axis ticks: a 1-2-5 step giving at most about 10 ticks, as (session seconds, x).
    package var ticks: [(seconds: Double, x: Double)] {
        let total = (end - start).seconds
        guard total > 0 else { return [(start.seconds, margin)] }
        var step = 1e-3
        while total / step > 10 { for factor in [2.0, 2.5, 2.0] where total / step > 10 { step *= factor } }
        var result: [(Double, Double)] = []
        let first = (start.seconds / step).rounded(.up) * step
        var t = first
        while t <= end.seconds + step * 1e-9 {
            result.append((t, margin + (t - start.seconds) / total * width))
            t += step
        }
        return result
    }
}
