import Testing

@testable import SegRecKit
@testable import SegRecMedia
@testable import SegRecTime

/// Center Stage: process-wide enabled state and control mode (owned by a session value),
/// per-camera active state, zoom inside the ratio.
@Suite("Capture: Center Stage state", .tags(.capture)) struct CenterStageControlTests {
    @Test("iOS defaults: user control, disabled; the app sets a control mode before enabling") func controlModes() throws {
        var control = CenterStageControl()
        #expect(control.centerStageControlMode == .user && !control.isCenterStageEnabled)
        #expect(throws: CameraControlError.centerStageControlDenied(by: .app, controlMode: .user)) { try control.setCenterStageEnabled(true) }
        #expect(!control.isCenterStageEnabled)
        let byUser = try control.setCenterStageEnabled(true, by: .user)  // Control Center
        #expect(byUser && control.isCenterStageEnabled)
        control.setCenterStageControlMode(.app)
        #expect(throws: CameraControlError.centerStageControlDenied(by: .user, controlMode: .app)) { try control.setCenterStageEnabled(false, by: .user) }
        let again = try control.setCenterStageEnabled(true)
        #expect(!again)  // already on
        control.setCenterStageControlMode(.cooperative)
        let off = try control.setCenterStageEnabled(false, by: .user)
        let on = try control.setCenterStageEnabled(true, by: .app)
        #expect(off && on && control.isCenterStageEnabled)
        #expect(
            CameraControlError.centerStageControlDenied(by: .app, controlMode: .user).description
                == "Center Stage cannot be turned on or off by the app while centerStageControlMode is user; allowed control modes for the app: app, cooperative"
        )
    }

    @Test("active only when enabled, on a supporting format, with depth delivery off") func active() {
        let on = CenterStageControl(centerStageControlMode: .cooperative, isCenterStageEnabled: true)
        let off = CenterStageControl(centerStageControlMode: .cooperative, isCenterStageEnabled: false)
        #expect(on.isCenterStageActive(formatSupportsCenterStage: true, isDepthDataDeliveryEnabled: false))
        #expect(!on.isCenterStageActive(formatSupportsCenterStage: false, isDepthDataDeliveryEnabled: false))
        #expect(!on.isCenterStageActive(formatSupportsCenterStage: true, isDepthDataDeliveryEnabled: true))
        #expect(!off.isCenterStageActive(formatSupportsCenterStage: true, isDepthDataDeliveryEnabled: false))
    }

    @Test("supporting formats: 1280 and 1920 on the Center Stage front cameras, never the back camera") func supportedFormats() throws {
        let front = try [1280, 1920, 3840, 4032].map { try CenterStageControl.isCenterStageSupported(deviceType: "builtInUltraWideCamera", squareSide: $0) }
        #expect(front == [true, true, false, false])
        #expect(try CenterStageControl.isCenterStageSupported(deviceType: "builtInInnerUltraWideCamera", squareSide: 1920))
        #expect(try !CenterStageControl.isCenterStageSupported(deviceType: "builtInDualWideCamera", squareSide: nil))
        #expect(try !CenterStageControl.isCenterStageSupported(deviceType: "builtInDualWideCamera", squareSide: 1280))
    }

    @Test("zoom inside the ratio per people count; control-mode names") func zoomAndNames() throws {
        #expect([0, 1, 2, 3, 7].map(CenterStageControl.zoomFactor(peopleInFrame:)) == [1.0, 1.5, 1.2, 1.0, 1.0])
        #expect(try CenterStageControl.ControlMode(named: "cooperative") == .cooperative)
        #expect(throws: CameraControlError.unknownValue(name: "centerStageControlMode", value: "system", allowed: "user, app, cooperative")) {
            _ = try CenterStageControl.ControlMode(named: "system")
        }
    }
}
