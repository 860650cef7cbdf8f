/// What `segrec verify` checks of the manifest's own `change`, `camera` and `facing`
/// fields (no file is read): each is consistent with the clocks in `devices` and with the
/// neighbouring segments and `events`, with exact integer time arithmetic only.
extension RecordingVerifier {
    /// Problems of the segments' `change`, `camera` and `facing`, each naming the segment
    /// index, the field and the expected value:
    /// - `segments[k].change.sessionTime` must be `convertTime(change.deviceTime, from:` the
    ///   change's clock `, to: host)` exactly; the change's clock is the `devices` entry of
    ///   `change.camera`, else of the segment's `camera`, else the first device;
    /// - a `cameraSwitched` segment: `change.camera` == its `camera`, `change.previousCamera`
    ///   == the previous segment's `camera`, `change.sessionTime` == its `sessionStart`;
    /// - a segment whose camera differs from the previous segment's starts with
    ///   `cameraSwitched` (or `timestampGap`);
    /// - `facing` equals what `events` say that camera faced at `sessionStart` (the last
    ///   `facingChanged` at or before it, else the first one's `from`); skipped when
    ///   `events` carry no `facingChanged` for the camera.
    static func changeProblems(_ manifest: RecordingManifest) -> [String] {
        var problems: [String] = []
        let segments = manifest.segments
        var clocks: [String: MediaClock] = [:]
        for device in manifest.devices {
            clocks[device.id] = try? MediaClock(
                identifier: device.id, timescale: device.timescale, offsetNanoseconds: device.offsetNanoseconds,
                driftPartsPerBillion: device.driftPartsPerBillion)
        }
        let facingEvents = (manifest.events ?? []).filter { $0.kind == .facingChanged }
        for (k, segment) in segments.enumerated() {
            let at = "segments[\(k)]"
            let previous = k > 0 ? segments[k - 1] : nil
            if let change = segment.change {
                let id = change.camera ?? segment.camera ?? manifest.devices.first?.id
                if let id, let clock = clocks[id] {
                    if change.deviceTime.timescale != clock.timescale {
                        problems.append(
                            "\(at).change.deviceTime: timescale \(change.deviceTime.timescale), expected \(clock.timescale) (device \(id) in devices)")
                    } else if let expected = try? convertTime(change.deviceTime, from: clock, to: .host), expected != change.sessionTime {
                        problems.append(
                            "\(at).change.sessionTime: \(change.sessionTime.value)/\(change.sessionTime.timescale), expected \(expected.value)/\(expected.timescale) (deviceTime \(change.deviceTime.value)/\(change.deviceTime.timescale) on \(id)'s clock converted to host)"
                        )
                    }
                } else if let id {
                    problems.append("\(at).change: clock \(id) is not in devices, expected one of \(manifest.devices.map(\.id).joined(separator: ", "))")
                }
            }
            if segment.startReason == .cameraSwitched {
                if let change = segment.change {
                    if change.camera != segment.camera {
                        problems.append("\(at).change.camera: \(change.camera ?? "absent"), expected \(segment.camera ?? "absent") (the segment's camera)")
                    }
                    if let previous, change.previousCamera != previous.camera {
                        problems.append(
                            "\(at).change.previousCamera: \(change.previousCamera ?? "absent"), expected \(previous.camera ?? "absent") (segments[\(k - 1)].camera)"
                        )
                    }
                    if change.sessionTime != segment.sessionStart {
                        problems.append(
                            "\(at).change.sessionTime: \(change.sessionTime.value)/\(change.sessionTime.timescale), expected \(segment.sessionStart.value)/\(segment.sessionStart.timescale) (the segment's sessionStart)"
                        )
                    }
                } else {
                    problems.append("\(at).change: absent, expected a change naming camera \(segment.camera ?? "?") for startReason cameraSwitched")
                }
            }
            if let previous, previous.camera != segment.camera, segment.startReason != .cameraSwitched, segment.startReason != .timestampGap {
                problems.append(
                    "\(at).startReason: \(segment.startReason.rawValue), expected cameraSwitched (camera \(previous.camera ?? "absent") → \(segment.camera ?? "absent"))"
                )
            }
            if let camera = segment.camera, let facing = segment.facing {
                let own = facingEvents.filter { $0.camera == camera }
                let expected = own.last(where: { $0.sessionTime <= segment.sessionStart })?.to ?? own.first?.from
                if let expected, expected != facing.rawValue {
                    problems.append("\(at).facing: \(facing.rawValue), expected \(expected) (events: \(camera)'s facing at sessionStart)")
                }
            }
        }
        return problems
    }
}
