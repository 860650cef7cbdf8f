import Foundation
import SegRecCommandLine
import SegRecKit

AllocatorTuning.fixMmapThreshold()
exit(await SegRecCommand.main(Array(CommandLine.arguments.dropFirst())))
