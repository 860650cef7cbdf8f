/// The stream's format, announced in band before the first frame and before every frame in
/// which any part of it changes (``CaptureOutputEvent/formatChanged(_:)``): the streaming
/// camera and its facing, constituent and mirroring, the rate, the capture angle the
/// rotation coordinator gives for how the phone is held, the active format and its
/// generation, and the dimensions (see ``CaptureSession``, "Orientation, formats and
/// stabilization").
extension CaptureSession {
    /// The streaming camera as the format names it: nil with one camera (the format names
    /// none and the stamp carries no camera code); else its id, facing, the constituent
    /// `producer` when it is not the camera itself, and mirroring.
    func streamCamera(producer: Int, facing: CameraFacing, mirrored: Bool) -> VideoStreamFormat.Camera? {
        guard routing != .fixed else { return nil }
        let device = self.device
        let constituent = devices[producer].uniqueID
        return VideoStreamFormat.Camera(
            id: device.uniqueID, facing: facing, constituent: constituent == device.uniqueID ? nil : constituent, isMirrored: mirrored)
    }

    /// Queues, before the streaming camera's `frame` of `dimensions`, the changes it shows
    /// (capture angle, zoom, Center Stage active: ``CameraControlState``) and then its
    /// format when that differs from the one last announced.
    func announceFormat(dimensions: VideoDimensions, camera: VideoStreamFormat.Camera?, facing: CameraFacing, frame: CaptureSessionChange.Frame) {
        let device = self.device
        let angle = controls.rotationAngle(deviceType: device.deviceType, facing: facing)
        for change in controls.frameChanges(angle: angle, zoom: device.videoZoomFactor, device: device, frame: frame) { outbox.append(.sessionEvent(change)) }
        let format = VideoStreamFormat(
            dimensions: dimensions, frameRate: device.frameRate, camera: camera, rotationAngle: angle, activeFormat: device.activeFormat.name,
            formatGeneration: formatGenerations[streaming], carriedRatioChanges: carriedRatioChanges)
        if format != announcedFormat {
            outbox.append(.formatChanged(format))
            announcedFormat = format
        }
    }
}
