/// The analog of `AVCaptureVideoDataOutput`: turns each captured frame into a
/// ``VideoFrame`` (NV12 picture from a ``SensorImageSource``, stamped with its index when
/// asked, plus its device and session timestamps).
///
/// Concurrency: a non-`Sendable` class owned by one ``CaptureSession`` and used from the
/// task that pulls its events.
package final class VideoDataOutput {
    /// Where pictures come from, one source per physical camera of the session (in its
    /// `cameras` order; the Virtual Front Camera shows its constituent's): the
    /// ``SyntheticSensor`` by default. A later source may substitute decoded real footage.
    package var frameSources: [any SensorImageSource]
    /// The first camera's source (the only one of a one-camera session).
    package var frameSource: any SensorImageSource {
        get { frameSources[0] }
        set { frameSources[0] = newValue }
    }
    /// Whether to write the frame-index stamp into sources that do not stamp themselves.
    /// Synthetic frames are always stamped.
    package var stampFrameIndex: Bool

    /// Creates an output with one source. - Parameters: `frameSource` (default
    /// ``SyntheticSensor``); `stampFrameIndex` to stamp sources that do not stamp (default `false`).
    package convenience init(frameSource: any SensorImageSource = SyntheticSensor(), stampFrameIndex: Bool = false) {
        self.init(frameSources: [frameSource], stampFrameIndex: stampFrameIndex)
    }

    /// Creates an output with one source per camera (at least one).
    package init(frameSources: [any SensorImageSource], stampFrameIndex: Bool = false) {
        precondition(!frameSources.isEmpty, "a video data output needs a frame source")
        self.frameSources = frameSources
        self.stampFrameIndex = stampFrameIndex
    }

    /// Whether delivered frames carry the frame-index stamp.
    package var deliversStampedFrames: Bool { stampFrameIndex || frameSource.stampsFrameIndex }

    /// Builds frame `index` from `frameSources[source]`: the picture is flipped left-right
    /// first when `mirrored` (`AVCaptureConnection.isVideoMirrored`), then stamped (rows
    /// 0–15 the index; with a `camera`, rows 16–31 the producing camera's position), so the
    /// stamp reads as usual.
    /// - Parameters:
    ///   - dimensions: the picture size for the ratio in effect.
    ///   - deviceTime: `D(index)` on the device clock.
    ///   - sessionTime: `D(index)` converted to the session clock (host ns).
    ///   - nextSessionTime: the next frame's session time; the difference is the duration.
    ///   - producerPosition: in a several-camera session, the 0-based position in `cameras`
    ///     of the camera that made the picture (stamp rows 16–31); `nil` for one camera.
    /// - Throws: the source's errors, or ``CaptureError/invalidParameter(name:value:allowed:)``
    ///   when the source returns a picture of the wrong size.
    func frame(
        index: Int64, dimensions: VideoDimensions, deviceTime: MediaTime, sessionTime: MediaTime, nextSessionTime: MediaTime, source: Int = 0,
        producerPosition: Int? = nil, mirrored: Bool = false
    ) throws -> VideoFrame {
        var buffer = try frameSources[source].pixelBuffer(forFrame: index, dimensions: dimensions)
        guard buffer.dimensions == dimensions else {
            throw CaptureError.invalidParameter(
                name: "frame source picture for frame \(index)", value: buffer.dimensions.description, allowed: dimensions.description)
        }
        if mirrored { buffer.mirrorHorizontally() }
        let selfStamping = frameSources[source].stampsFrameIndex
        let stamped = selfStamping || stampFrameIndex
        if stampFrameIndex && !selfStamping || (mirrored && stamped) {
            FrameIndexStamp.write(UInt32(truncatingIfNeeded: index), intoLuma: &buffer.lumaPlane, width: buffer.width, bytesPerRow: buffer.lumaBytesPerRow)
        }
        if let producerPosition, stamped {
            FrameIndexStamp.write(
                UInt32(producerPosition), intoLuma: &buffer.lumaPlane, width: buffer.width, bytesPerRow: buffer.lumaBytesPerRow,
                firstRow: FrameIndexStamp.cameraRow)
        }
        let duration: MediaTime
        do { duration = try nextSessionTime.subtracting(sessionTime) } catch { throw CaptureError.time(error) }
        return VideoFrame(pixelBuffer: buffer, index: index, deviceTime: deviceTime, sessionTime: sessionTime, duration: duration)
    }
}
