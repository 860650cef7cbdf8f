/// The analog of `AVCaptureVideoDataOutput`: turns each captured frame into a
/// ``VideoFrame`` (NV12 picture from a ``SensorImageSource``, stamped with its index when
/// asked, plus its device and session timestamps).
///
/// Concurrency: a non-`Sendable` class owned by one ``CaptureSession`` and used from the
/// task that pulls its events.
public final class VideoDataOutput {
    /// Where pictures come from; the ``SyntheticSensor`` by default. A later source may
    /// substitute decoded real footage.
    public var frameSource: any SensorImageSource
    /// Whether to write the frame-index stamp into sources that do not stamp themselves.
    /// Synthetic frames are always stamped.
    public var stampFrameIndex: Bool
    /// `AVCaptureConnection.isVideoMirrored`: flip every buffer left-right before the stamp
    /// is drawn (one-camera sessions; a several-camera session decides per frame).
    public var isVideoMirrored = false

    /// Creates an output. - Parameters: `frameSource` (default ``SyntheticSensor``);
    /// `stampFrameIndex` to stamp sources that do not stamp (default `false`).
    public init(frameSource: any SensorImageSource = SyntheticSensor(), stampFrameIndex: Bool = false) {
        self.frameSource = frameSource
        self.stampFrameIndex = stampFrameIndex
    }

    /// Whether delivered frames carry the frame-index stamp.
    public var deliversStampedFrames: Bool { stampFrameIndex || frameSource.stampsFrameIndex }

    /// Builds frame `index`.
    /// - Parameters:
    ///   - dimensions: the picture size for the ratio in effect.
    ///   - deviceTime: `D(index)` on the device clock.
    ///   - sessionTime: `D(index)` converted to the session clock (host ns).
    ///   - nextSessionTime: the next frame's session time; the difference is the duration.
    /// - Throws: the source's errors, or ``CaptureError/invalidParameter(name:value:allowed:)``
    ///   when the source returns a picture of the wrong size.
    func frame(index: Int64, dimensions: VideoDimensions, deviceTime: MediaTime,
               sessionTime: MediaTime, nextSessionTime: MediaTime) throws -> VideoFrame {
        try frame(index: index, dimensions: dimensions, deviceTime: deviceTime, sessionTime: sessionTime,
                  nextSessionTime: nextSessionTime, source: &frameSource, camera: nil, mirrored: isVideoMirrored)
    }

    /// Builds frame `index` from `source` for `camera` (several-camera sessions): the
    /// picture is mirrored first when `camera.isMirrored`, then stamped (rows 0–15 the
    /// index, rows 16–31 the producing camera's position), so the stamp reads as usual.
    /// - Throws: as ``frame(index:dimensions:deviceTime:sessionTime:nextSessionTime:)``.
    func frame(index: Int64, dimensions: VideoDimensions, deviceTime: MediaTime, sessionTime: MediaTime,
               nextSessionTime: MediaTime, source: inout any SensorImageSource,
               camera: FrameCamera?, mirrored: Bool? = nil) throws -> VideoFrame {
        let mirrored = mirrored ?? camera?.isMirrored ?? false
        var buffer = try source.pixelBuffer(forFrame: index, dimensions: dimensions)
        guard buffer.dimensions == dimensions else {
            throw CaptureError.invalidParameter(name: "frame source picture for frame \(index)",
                                                value: buffer.dimensions.description,
                                                allowed: dimensions.description)
        }
        if mirrored { buffer.mirrorHorizontally() }
        let stamped = source.stampsFrameIndex || stampFrameIndex
        if stampFrameIndex && !source.stampsFrameIndex || (mirrored && stamped) {
            FrameIndexStamp.write(UInt32(truncatingIfNeeded: index), intoLuma: &buffer.lumaPlane,
                                  width: buffer.width, bytesPerRow: buffer.lumaBytesPerRow)
        }
        if let camera, stamped {
            FrameIndexStamp.write(UInt32(camera.producerPosition), intoLuma: &buffer.lumaPlane,
                                  width: buffer.width, bytesPerRow: buffer.lumaBytesPerRow,
                                  firstRow: FrameIndexStamp.cameraRow)
        }
        let duration: MediaTime
        do { duration = try nextSessionTime.subtracting(sessionTime) } catch { throw CaptureError.time(error) }
        var frame = VideoFrame(pixelBuffer: buffer, index: index, deviceTime: deviceTime,
                               sessionTime: sessionTime, duration: duration)
        frame.camera = camera
        return frame
    }
}
